/**
 * The sessions of every project, as trees drawn with connector lines: each row keeps what the
 * agent is for (its title) with what it does now beside it, its state (a queued agent's place in
 * the queue), the turn's clock only while one runs (else when it last moved), tokens and cost.
 */
import { useEffect, useState } from 'react';
import type { WebProject, WebSession } from '../hub.js';
import {
  cost,
  isLive,
  label,
  projectNames,
  short,
  stateText,
  timeText,
  tokens,
  turnRunning,
  typeName,
} from './display.js';
import { progressLabel } from '../../core/progress.js';

export interface TreeRow {
  s: WebSession;
  depth: number;
  /** For each level 1..depth: whether the ancestor at that level (the row itself last) has a later sibling. */
  more: boolean[];
}

/** Sessions in tree order: roots newest first, children oldest first under their parent. */
export function treeOrder(sessions: readonly WebSession[]): TreeRow[] {
  const ids = new Set(sessions.map((s) => s.id));
  const kids = new Map<string, WebSession[]>();
  const roots: WebSession[] = [];
  for (const s of sessions) {
    if (s.parentId && ids.has(s.parentId)) kids.set(s.parentId, [...(kids.get(s.parentId) ?? []), s]);
    else roots.push(s);
  }
  roots.sort((a, b) => b.createdAt - a.createdAt);
  const out: TreeRow[] = [];
  const walk = (s: WebSession, depth: number, more: boolean[]): void => {
    out.push({ s, depth, more });
    const ks = (kids.get(s.id) ?? []).sort((a, b) => a.createdAt - b.createdAt);
    ks.forEach((k, i) => walk(k, depth + 1, [...more, i < ks.length - 1]));
  };
  for (const r of roots) walk(r, 0, []);
  return out;
}

/** Deeper levels share the last indent: the tree stays readable on a phone. */
const MAX_DEPTH = 6;

/** "3m ago" must move on even when nothing runs (the page's own clock ticks only while something does). */
function useMinute(now: number): number {
  const [mine, setMine] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setMine(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return Math.max(now, mine);
}

export function TreeList(props: {
  projects: WebProject[];
  now: number;
  selected: string | null;
  showArchived: boolean;
  open: (id: string) => void;
}) {
  const now = useMinute(props.now);
  const names = projectNames(props.projects.map((p) => p.root));
  return (
    <section className="tree" data-testid="tree">
      {props.projects.map((p) => {
        const rows = treeOrder(p.sessions.filter((s) => props.showArchived || !s.archivedAt));
        if (rows.length === 0) return null;
        return (
          <div key={p.id} className="project">
            <h3 title={p.root} data-testid="project-name">
              {names.get(p.root) ?? p.root}
            </h3>
            {rows.map((r) => (
              <Row key={r.s.id} r={r} now={now} selected={props.selected === r.s.id} open={props.open} />
            ))}
          </div>
        );
      })}
    </section>
  );
}

/** The connector lines left of a child row: a rail for each open ancestor, an elbow for itself. */
function Guides({ more }: { more: boolean[] }) {
  const levels = more.slice(0, MAX_DEPTH);
  return (
    <>
      {levels.map((m, i) =>
        i === levels.length - 1 ? (
          <span key={i} className={`elbow at-${i + 1}${m ? ' more' : ''}`} aria-hidden="true" />
        ) : m ? (
          <span key={i} className={`rail at-${i + 1}`} aria-hidden="true" />
        ) : null,
      )}
    </>
  );
}

function Row(p: { r: TreeRow; now: number; selected: boolean; open: (id: string) => void }) {
  const { s, depth } = p.r;
  const title = label(s);
  const activity = s.activity && isLive(s) ? s.activity : null;
  const time = timeText(s, p.now);
  const progress = turnRunning(s) ? progressLabel(s.progress, s.type) : '';
  return (
    <div className={`node depth-${Math.min(depth, MAX_DEPTH)}`}>
      <Guides more={p.r.more} />
      <button
        className={`session${p.selected ? ' selected' : ''}${s.archivedAt ? ' archived' : ''}`}
        onClick={() => p.open(s.id)}
        data-testid="session-row"
        data-session={s.id}
        data-status={s.status}
      >
        <span className={`dot st-${s.status}`} aria-label={s.status} />
        <span className="main">
          <span className="name">
            <b>{typeName(s)}</b> <span className="id">{short(s.id)}</span>{' '}
            {s.pty ? <span className="tag">pty</span> : null}
            {s.worktreeBranch ? <span className="tag">worktree</span> : null}
            {s.sandbox?.startsWith('unsandboxed') && isLive(s) ? (
              <span className="tag unsandboxed" title={s.sandbox} data-testid="row-unsandboxed">
                unsandboxed
              </span>
            ) : null}
            {s.zone ? (
              <span className="tag" title="runs in this zone (another machine)">
                @{s.zone}
              </span>
            ) : null}
          </span>
          <span className="what" data-testid="row-title">
            {title}
          </span>
          {activity && activity !== title ? (
            <span className="doing" data-testid="row-activity">
              {activity}
            </span>
          ) : null}
        </span>
        <span className="nums">
          <span className="status" data-testid="row-state">
            {stateText(s)}
          </span>
          {time ? (
            <span className="time" data-testid="row-time">
              {time}
            </span>
          ) : null}
          {progress ? (
            <span className="progress" data-testid="row-progress" title={s.progress?.basis}>
              {progress}
            </span>
          ) : null}
          {tokens(s) ? <span>{tokens(s)}</span> : null}
          {s.costUsd ? <span>{cost(s.costUsd)}</span> : null}
        </span>
      </button>
    </div>
  );
}
