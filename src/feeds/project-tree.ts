/**
 * The tree of every project of the home (`klaude ui --all`, `P`): a "needs you" group first (the
 * sessions waiting for the person, whichever project: a permission request or a question, the
 * same rule as `klaude sessions --projects`), then each project's own tree under a heading. Pure.
 *
 * A waiting session is in both places (the group and its project's tree), so rows are told
 * apart by their index, not by their session id.
 */
import path from 'node:path';
import { buildRows, countByStatus, type SessionView, type TreeOptions, type TreeRow } from './session-tree.js';

/** A project shown in the all-projects tree. */
export interface ProjectRef {
  id: string;
  root: string;
}

/** The sessions that wait for the person: the same rule as `klaude sessions --projects`. */
export function needsYou(s: Pick<SessionView, 'status' | 'archivedAt'>): boolean {
  return s.status === 'waiting' && s.archivedAt === null;
}

/** A project's root as a heading shows it: under the home directory with ~, long ones by their last parts. */
export function shortRoot(root: string, homeDir: string | undefined, max = 40): string {
  let p = root;
  if (homeDir && homeDir !== '/' && (p === homeDir || p.startsWith(`${homeDir}/`))) p = `~${p.slice(homeDir.length)}`;
  if (p.length <= max) return p;
  const parts = p.split(path.sep).filter(Boolean);
  let out = parts.pop() ?? p;
  while (parts.length && out.length + parts[parts.length - 1]!.length + 1 <= max - 2) out = `${parts.pop()}/${out}`;
  return `…/${out}`;
}

function liveCount(sessions: readonly SessionView[]): string {
  const c = countByStatus(sessions);
  const parts = [
    c.running ? `${c.running} running` : '',
    c.waiting ? `${c.waiting} waiting` : '',
    c.queued ? `${c.queued} queued` : '',
  ].filter(Boolean);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

export interface AllRowsInput {
  sessions: readonly SessionView[];
  /** In display order; a session belongs to the one its `projectId` names. */
  projects: readonly ProjectRef[];
  homeDir?: string;
}

/** The rows of every project, grouped: needs you, then each project (in the order given). */
export function buildAllRows(i: AllRowsInput, opts: TreeOptions): TreeRow[] {
  const byProject = new Map<string, SessionView[]>();
  for (const s of i.sessions) {
    const p = s.projectId;
    if (p === undefined) continue;
    const list = byProject.get(p) ?? [];
    list.push(s);
    byProject.set(p, list);
  }
  const out: TreeRow[] = [];
  const rootOf = new Map(i.projects.map((p) => [p.id, p.root]));
  const waiting = buildRows(i.sessions, { ...opts, collapsed: new Set() }).filter((r) => needsYou(r.session));
  waiting.forEach((r, n) => {
    const projectId = r.session.projectId;
    const root = projectId ? rootOf.get(projectId) : undefined;
    out.push({
      ...r,
      depth: 0,
      hasChildren: false,
      collapsed: false,
      ...(projectId ? { projectId } : {}),
      ...(root ? { where: path.basename(root) } : {}),
      ...(n === 0 ? { heading: `needs you (${waiting.length})` } : {}),
    });
  });
  for (const p of i.projects) {
    const sessions = byProject.get(p.id) ?? [];
    const rows = buildRows(sessions, opts);
    rows.forEach((r, n) =>
      out.push({
        ...r,
        projectId: p.id,
        ...(n === 0 ? { heading: `${shortRoot(p.root, i.homeDir)}${liveCount(sessions)}` } : {}),
      }),
    );
  }
  return out;
}
