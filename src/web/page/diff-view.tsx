/** An agent's diff, per file, coloured and collapsible (`klaude diff`'s data: git/session-diff.ts). */
import { useEffect, useState } from 'react';
import type { SessionDiff } from '../../git/session-diff.js';
import { api, describe } from './api.js';
import { readable, splitPatch } from './diff-words.js';
import { Rich } from './rich-text.js';

const cls = (l: string): string =>
  l.startsWith('+') && !l.startsWith('+++')
    ? 'add'
    : l.startsWith('-') && !l.startsWith('---')
      ? 'del'
      : l.startsWith('@@')
        ? 'hunk'
        : l.startsWith('\\')
          ? 'muted'
          : '';

export function DiffView({ id }: { id: string }) {
  const [diff, setDiff] = useState<SessionDiff | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    api
      .get<SessionDiff>(`/api/sessions/${id}/diff`)
      .then(setDiff)
      .catch((e: unknown) => setErr(describe(e)));
  }, [id]);
  if (err)
    return (
      <div className="error" role="alert">
        <Rich text={err} />
      </div>
    );
  if (!diff) return <div className="muted">reading the diff…</div>;
  const parts = splitPatch(diff.patch);
  return (
    <div className="diff" data-testid="diff">
      <div className="muted">
        {diff.kind === 'worktree' ? `branch ${diff.branch ?? ''}` : 'shared tree'} · {diff.files.length} file
        {diff.files.length === 1 ? '' : 's'}
        {diff.note ? ` · ${diff.note}` : ''}
      </div>
      {parts.length === 0 ? <div className="muted">no changes</div> : null}
      {parts.map((p) => {
        const f = diff.files.find((x) => x.path === p.file);
        return (
          <details key={p.file} open={parts.length <= 3} data-testid="diff-file">
            <summary>
              <code>{p.file}</code> {f ? <span className="add">+{f.added ?? '?'}</span> : null}{' '}
              {f ? <span className="del">-{f.deleted ?? '?'}</span> : null}
            </summary>
            <pre>
              {readable(p.lines).map((l, i) => (
                <div key={i} className={cls(l)}>
                  {l || ' '}
                </div>
              ))}
            </pre>
          </details>
        );
      })}
    </div>
  );
}
