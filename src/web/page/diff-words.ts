/** A unified patch as the diff view shows it: one part per file, git's header lines in words. */

/** The unified patch cut at each `diff --git` header: one part per file. */
export function splitPatch(patch: string): { file: string; lines: string[] }[] {
  const out: { file: string; lines: string[] }[] = [];
  for (const line of patch.split('\n')) {
    const m = /^diff --git a\/(.*) b\//.exec(line);
    if (m) out.push({ file: m[1]!, lines: [] });
    else out[out.length - 1]?.lines.push(line);
  }
  return out;
}

/**
 * A file's part in words: git's header lines (modes, blob ids, the `---`/`+++` names the summary
 * already shows) become what happened to the file; the hunks stay as they are.
 */
export function readable(lines: readonly string[]): string[] {
  const hunk = lines.findIndex((l) => l.startsWith('@@') || l.startsWith('Binary files'));
  const head = hunk === -1 ? lines : lines.slice(0, hunk);
  const body = hunk === -1 ? [] : lines.slice(hunk);
  const out: string[] = [];
  const isNew = head.some((l) => l.startsWith('new file mode'));
  for (const l of head) {
    if (l.startsWith('new file mode')) out.push(body.length === 0 ? 'new empty file' : 'new file');
    else if (l.startsWith('deleted file mode')) out.push(body.length === 0 ? 'deleted (it was empty)' : 'deleted');
    else if (l.startsWith('rename from ')) out.push(`renamed from ${l.slice('rename from '.length)}`);
    else if (l.startsWith('new mode ')) out.push(/755$/.test(l) ? 'now executable' : 'no longer executable');
  }
  const rest = body.map((l) => (l.startsWith('Binary files') ? (isNew ? 'binary file' : 'binary file changed') : l));
  // The last line of a patch is empty (its final newline).
  while (rest.length > 0 && rest[rest.length - 1] === '') rest.pop();
  return [...out, ...rest];
}
