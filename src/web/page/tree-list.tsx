/** The sessions of every project, as trees: status, activity, running clock, tokens, cost. */
import type { WebProject, WebSession } from '../hub.js';
import { clock, cost, isLive, label, short, tokens } from './display.js';

/** Sessions in tree order: roots newest first, children oldest first under their parent. */
export function treeOrder(sessions: readonly WebSession[]): { s: WebSession; depth: number }[] {
  const ids = new Set(sessions.map((s) => s.id));
  const kids = new Map<string, WebSession[]>();
  const roots: WebSession[] = [];
  for (const s of sessions) {
    if (s.parentId && ids.has(s.parentId)) kids.set(s.parentId, [...(kids.get(s.parentId) ?? []), s]);
    else roots.push(s);
  }
  roots.sort((a, b) => b.createdAt - a.createdAt);
  const out: { s: WebSession; depth: number }[] = [];
  const walk = (s: WebSession, depth: number): void => {
    out.push({ s, depth });
    for (const k of (kids.get(s.id) ?? []).sort((a, b) => a.createdAt - b.createdAt)) walk(k, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  return out;
}

export function TreeList(props: {
  projects: WebProject[];
  now: number;
  selected: string | null;
  showArchived: boolean;
  open: (id: string) => void;
}) {
  return (
    <section className="tree" data-testid="tree">
      {props.projects.map((p) => {
        const rows = treeOrder(p.sessions.filter((s) => props.showArchived || !s.archivedAt));
        if (rows.length === 0) return null;
        return (
          <div key={p.id} className="project">
            <h3 title={p.root}>{p.root.split('/').pop() || p.root}</h3>
            {rows.map(({ s, depth }) => (
              <Row
                key={s.id}
                s={s}
                depth={depth}
                now={props.now}
                selected={props.selected === s.id}
                open={props.open}
              />
            ))}
          </div>
        );
      })}
    </section>
  );
}

function Row(p: { s: WebSession; depth: number; now: number; selected: boolean; open: (id: string) => void }) {
  const { s } = p;
  const started = s.runStartedAt ?? s.createdAt;
  const elapsed = isLive(s) ? p.now - started : (s.endedAt ?? s.updatedAt) - started;
  return (
    <button
      className={`session depth-${Math.min(p.depth, 6)}${p.selected ? ' selected' : ''}${s.archivedAt ? ' archived' : ''}`}
      onClick={() => p.open(s.id)}
      data-testid="session-row"
      data-session={s.id}
      data-status={s.status}
    >
      <span className={`dot st-${s.status}`} aria-label={s.status} />
      <span className="main">
        <span className="name">
          <b>{s.type}</b> <span className="id">{short(s.id)}</span> {s.pty ? <span className="tag">pty</span> : null}
          {s.worktreeBranch ? <span className="tag">worktree</span> : null}
        </span>
        <span className="what">{s.activity && isLive(s) ? s.activity : label(s)}</span>
      </span>
      <span className="nums">
        <span className="status">{s.status}</span>
        <span>{clock(elapsed)}</span>
        <span>{tokens(s)}</span>
        <span>{cost(s.costUsd)}</span>
      </span>
    </button>
  );
}
