/**
 * The agent tree as the dashboard shows it: sessions (flat rows from the DB) → visible rows in
 * display order, with depth, fold state and filter matches. Pure.
 *
 * Order: root sessions newest first (recent work on top); sub-agents oldest first under their
 * parent (the order they were started); pinned ones first among their siblings. A session whose parent is missing or hidden (archived)
 * is shown as a root, so nothing disappears by accident.
 */
import type { SessionStatus } from '../core/status.js';
import { isActive, SESSION_STATUSES } from '../core/status.js';
import { shortId } from '../core/ids.js';
import { byPin } from '../core/session-title.js';
import type { SessionListRow } from '../db/repos/listing.js';

/** What the dashboard reads of a session (one row of the drizzle-free listing). */
export type SessionView = Pick<
  SessionListRow,
  | 'id'
  | 'parentId'
  | 'type'
  | 'runtime'
  | 'status'
  | 'title'
  | 'prompt'
  | 'lastText'
  | 'model'
  | 'costUsd'
  | 'tokensIn'
  | 'tokensOut'
  | 'archivedAt'
  | 'createdAt'
  | 'updatedAt'
  | 'endedAt'
  | 'logPath'
  | 'nativeSessionId'
  | 'activity'
  | 'runStartedAt'
  | 'error'
> &
  /** The run queue (optional: views built by hand in tests leave them out). */
  Partial<
    Pick<
      SessionListRow,
      | 'queuePosition'
      | 'rateLimitMax'
      | 'worktreeBranch'
      | 'worktreePath'
      | 'name'
      | 'pinnedAt'
      | 'projectId'
      | 'forkedFrom'
      | 'sandbox'
      | 'zone'
      | 'reviewOf'
      | 'priority'
      | 'progress'
    >
  >;

export interface TreeRow {
  session: SessionView;
  depth: number;
  hasChildren: boolean;
  collapsed: boolean;
  /** Matches the filter (false: shown only as the ancestor of a match). True when no filter. */
  match: boolean;
  /** Cost and tokens of the session and all its descendants (archived ones included). */
  subtree: Usage;
  /** All projects (project-tree.ts): a heading line drawn above this row (the first of its group). */
  heading?: string;
  /** All projects: the row's project (its id), and in the needs-you group its name. */
  projectId?: string;
  where?: string;
}

export interface Usage {
  costUsd: number;
  tokens: number;
}

const ownUsage = (s: SessionView): Usage => ({
  costUsd: s.costUsd ?? 0,
  tokens: (s.tokensIn ?? 0) + (s.tokensOut ?? 0),
});

/** Cost and tokens of every session given (the project's total in the header). */
export function totalUsage(sessions: readonly SessionView[]): Usage {
  const t = { costUsd: 0, tokens: 0 };
  for (const s of sessions) {
    const u = ownUsage(s);
    t.costUsd += u.costUsd;
    t.tokens += u.tokens;
  }
  return t;
}

/** Each session's subtree usage (itself plus descendants), from the full list. */
function subtreeUsage(sessions: readonly SessionView[]): Map<string, Usage> {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const out = new Map<string, Usage>();
  for (const s of sessions) {
    const u = ownUsage(s);
    if (u.costUsd === 0 && u.tokens === 0) continue;
    // Add to itself and every ancestor (guarding against a parent cycle).
    const seen = new Set<string>();
    for (
      let cur: SessionView | undefined = s;
      cur && !seen.has(cur.id);
      cur = cur.parentId ? byId.get(cur.parentId) : undefined
    ) {
      seen.add(cur.id);
      const acc = out.get(cur.id) ?? { costUsd: 0, tokens: 0 };
      acc.costUsd += u.costUsd;
      acc.tokens += u.tokens;
      out.set(cur.id, acc);
    }
  }
  return out;
}

export interface TreeOptions {
  collapsed: ReadonlySet<string>;
  filter: string;
  showArchived: boolean;
  /** Roots grouped by state: needs you, then working, then done (each group pinned first, newest first). */
  groupByState?: boolean;
}

/** The state groups of `groupByState`, in display order. */
export const STATE_GROUPS = ['needs you', 'working', 'done'] as const;
export type StateGroup = (typeof STATE_GROUPS)[number];

/** A session's own group: waiting on someone, doing something, or neither. */
export function stateGroupOf(s: Pick<SessionView, 'status'>): StateGroup {
  if (s.status === 'waiting') return 'needs you';
  if (s.status === 'running' || s.status === 'pending' || s.status === 'queued') return 'working';
  return 'done';
}

/** Alive: a process is (or is about to be) behind it. */
export function isLive(s: Pick<SessionView, 'status'>): boolean {
  return s.status === 'pending' || s.status === 'idle' || isActive(s.status);
}

export function matchesFilter(s: SessionView, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (needle === '') return true;
  const hay = [
    s.type,
    s.id,
    shortId(s.id),
    s.status,
    s.runtime,
    s.zone ? `@${s.zone}` : '',
    s.name ?? '',
    s.title ?? '',
    s.model ?? '',
    s.nativeSessionId ?? '',
  ]
    .join('\n')
    .toLowerCase();
  return needle.split(/\s+/).every((w) => hay.includes(w));
}

interface Node {
  s: SessionView;
  children: Node[];
}

/** A tree's group: the most urgent of its sessions' (a root whose sub-agent waits needs you). */
function treeGroup(n: Node): number {
  let g = STATE_GROUPS.indexOf(stateGroupOf(n.s));
  for (const c of n.children) g = Math.min(g, treeGroup(c));
  return g;
}

function buildForest(sessions: readonly SessionView[], groupByState = false): Node[] {
  const byId = new Map<string, Node>();
  for (const s of sessions) byId.set(s.id, { s, children: [] });
  const roots: Node[] = [];
  for (const node of byId.values()) {
    const parent = node.s.parentId ? byId.get(node.s.parentId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const older = (a: Node, b: Node): number => a.s.createdAt - b.s.createdAt || (a.s.id < b.s.id ? -1 : 1);
  for (const n of byId.values()) n.children.sort((a, b) => byPin(a.s, b.s) || older(a, b));
  if (!groupByState) return roots.sort((a, b) => byPin(a.s, b.s) || -older(a, b));
  const group = new Map(roots.map((r) => [r, treeGroup(r)]));
  return roots.sort((a, b) => group.get(a)! - group.get(b)! || byPin(a.s, b.s) || -older(a, b));
}

/** The rows to show, in order. With a filter, matches and their ancestors are shown, folds ignored. */
export function buildRows(sessions: readonly SessionView[], opts: TreeOptions): TreeRow[] {
  const visible = opts.showArchived ? sessions : sessions.filter((s) => s.archivedAt === null);
  const forest = buildForest(visible, opts.groupByState);
  const usage = subtreeUsage(sessions);
  const filtering = opts.filter.trim() !== '';
  const out: TreeRow[] = [];

  // With a filter: keep a node when it or a descendant matches.
  const keep = new Map<string, boolean>();
  const mark = (n: Node): boolean => {
    let any = matchesFilter(n.s, opts.filter);
    for (const c of n.children) any = mark(c) || any;
    keep.set(n.s.id, any);
    return any;
  };
  if (filtering) for (const r of forest) mark(r);

  const walk = (n: Node, depth: number): void => {
    if (filtering && !keep.get(n.s.id)) return;
    const collapsed = !filtering && opts.collapsed.has(n.s.id) && n.children.length > 0;
    out.push({
      session: n.s,
      depth,
      hasChildren: n.children.length > 0,
      collapsed,
      match: !filtering || matchesFilter(n.s, opts.filter),
      subtree: usage.get(n.s.id) ?? { costUsd: 0, tokens: 0 },
    });
    if (!collapsed) for (const c of n.children) walk(c, depth + 1);
  };
  for (const r of forest) walk(r, 0);
  return out;
}

/** A session and all its descendants (ids), from the flat list. */
export function subtreeIds(sessions: readonly SessionView[], rootId: string): string[] {
  const kids = new Map<string, string[]>();
  for (const s of sessions) {
    if (!s.parentId) continue;
    const list = kids.get(s.parentId) ?? [];
    list.push(s.id);
    kids.set(s.parentId, list);
  }
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [rootId];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    stack.push(...(kids.get(id) ?? []));
  }
  return out;
}

export type StatusCounts = Record<SessionStatus, number>;

/** Sessions per status (archived ones left out). */
export function countByStatus(sessions: readonly SessionView[]): StatusCounts {
  const c = Object.fromEntries(SESSION_STATUSES.map((s) => [s, 0])) as StatusCounts;
  for (const s of sessions) if (s.archivedAt === null) c[s.status]++;
  return c;
}

/** Agents (not interactive TUI sessions) that are doing something: what `q` warns about. */
export function runningAgents(sessions: readonly SessionView[]): SessionView[] {
  return sessions.filter(
    (s) => s.type !== 'tui' && s.archivedAt === null && (s.status === 'pending' || isActive(s.status)),
  );
}

/** Running (or waiting) now: its row shows a clock that moves. */
export function isWorking(s: Pick<SessionView, 'status' | 'archivedAt'>): boolean {
  return isActive(s.status) && s.archivedAt === null;
}
