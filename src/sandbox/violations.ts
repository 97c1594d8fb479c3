/**
 * What a sandbox refused, read from a sandboxed command's output (docs/sandbox.md, "A command the
 * sandbox blocked"). Claude Code reports nothing of its own for the filesystem on Linux: bubblewrap
 * mounts what the agent may not write read-only, so the command itself says `Read-only file
 * system`; Unix sockets are refused by seccomp (`Operation not permitted`); 2.1.332 appends a
 * `<sandbox_violations>` block for refused hosts. Each becomes one line for the log.
 */

const MAX_BLOCKS = 5;
const VIOLATIONS = /<sandbox_violations>([\s\S]*?)<\/sandbox_violations>/g;

export function sandboxBlocks(output: string): string[] {
  const found: string[] = [];
  const add = (line: string): void => {
    const l = line.trim().replace(/\s+/g, ' ');
    if (l && !found.includes(l) && found.length < MAX_BLOCKS) found.push(l.length > 200 ? `${l.slice(0, 199)}…` : l);
  };
  for (const m of output.matchAll(VIOLATIONS)) for (const line of m[1]!.split('\n')) add(line);
  for (const line of output.replace(VIOLATIONS, '').split('\n')) {
    if (/Read-only file system/.test(line)) add(line.replace(/^.*?line \d+: /, ''));
    else if (/Operation not permitted/.test(line)) add(line);
  }
  return found;
}
