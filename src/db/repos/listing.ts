/**
 * Read-only listing queries in raw SQL (no drizzle), usable with a FastDb (see fast.ts): the session
 * tree of `klaude sessions` and the dashboard (one statement for 1,000 sessions), and the lookups
 * `klaude watch` and the PostToolUse update injection need.
 */
import type { SessionStatus } from '../../core/status.js';
import { countsAsAlive, identities, liveRows } from '../../lib/process.js';
import type { HasSqlite } from '../connection.js';
import { budgetReached } from './budgets.js';
import { queueAheadOrAt } from './queue-sql.js';
import { publicProgress, type Progress, type ProgressRecord } from '../../core/progress.js';
import type { Runtime, UpdateRow } from '../schema.js';

/** The columns a listing shows (no metadata/transcript), plus the current process pid (see ListDetail). */
export interface SessionListRow {
  id: string;
  projectId: string;
  parentId: string | null;
  type: string;
  runtime: Runtime;
  status: SessionStatus;
  title: string | null;
  /** The person's title (`klaude rename`): shown instead of the prompt. */
  name: string | null;
  prompt: string | null;
  model: string | null;
  nativeSessionId: string | null;
  logPath: string | null;
  lastText: string | null;
  costUsd: number | null;
  tokensIn: number | null;
  tokensOut: number | null;
  /** A `--worktree` agent's branch (null: it works in the shared tree). */
  worktreeBranch: string | null;
  /** Its worktree's directory (it may have been pruned since). */
  worktreePath: string | null;
  archivedAt: number | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
  /** What it is doing now ("writing", "Bash: npm test", a retry…), while live. */
  activity: string | null;
  /** When the current run began (elapsed time counts from here). */
  runStartedAt: number | null;
  /** Why it failed, one line. */
  error: string | null;
  /** Pid of the session's newest current, not exited process (runtime, claude or pty), if any. */
  pid: number | null;
  /** 1-based place in the run queue (status queued), else null. */
  queuePosition: number | null;
  /** The runtime's run limit lowered after rate limiting (429/529), and until when; null when not lowered. */
  rateLimitMax: number | null;
  rateLimitUntil: number | null;
  /** When it was pinned (listed first), else null. */
  pinnedAt: number | null;
  /** Why a queued session waits beyond its place: `over budget` (its tree reached a limit); else null. */
  queuedFor: string | null;
  /** The session this one was forked from (`klaude fork`), else null. */
  forkedFrom: string | null;
  /** Where its commands run (core/sandbox-state.ts): `sandboxed`, `unsandboxed: <why>`, or null (interactive, older records). */
  sandbox: string | null;
  /** The zone it runs in (another machine, docs/zones.md), else null. */
  zone: string | null;
  /** The session this one reviews (`klaude review`), else null. */
  reviewOf: string | null;
  /** Run-queue priority: 1 high, 0 normal, -1 low (core/priority.ts). */
  priority: number;
  /** How far along it is, while running or waiting (core/progress.ts); null otherwise. */
  progress: Progress | null;
}

/**
 * `brief` (plain listings): the detail columns come back null and texts are cut to 100 characters,
 * so a listing of thousands allocates little. `full`: every column, texts cut to 400.
 */
export type ListDetail = 'brief' | 'full';

const listSql = (detail: ListDetail): string => {
  const full = detail === 'full';
  const cut = full ? 400 : 100;
  const col = (expr: string, as: string): string => (full ? `${expr} AS ${as}` : `NULL AS ${as}`);
  return `
SELECT s.id, s.project_id AS projectId, s.parent_id AS parentId, s.type, s.runtime, s.status,
  substr(s.title, 1, ${cut}) AS title, s.name, substr(s.prompt, 1, ${cut}) AS prompt, substr(s.last_text, 1, ${cut}) AS lastText,
  ${col('s.model', 'model')}, ${col('s.native_session_id', 'nativeSessionId')}, ${col('s.log_path', 'logPath')},
  ${col('s.cost_usd', 'costUsd')}, ${col('s.tokens_in', 'tokensIn')}, ${col('s.tokens_out', 'tokensOut')},
  ${col('s.worktree_branch', 'worktreeBranch')}, ${col('s.worktree_path', 'worktreePath')},
  s.archived_at AS archivedAt, s.created_at AS createdAt, s.updated_at AS updatedAt, s.ended_at AS endedAt,
  substr(s.activity, 1, 120) AS activity, s.run_started_at AS runStartedAt, substr(s.error, 1, ${cut}) AS error,
  ${col(
    `(SELECT p.pid FROM runtime_process p
     WHERE p.klaude_session_id = s.id AND p.is_current = 1 AND p.exited_at IS NULL
     ORDER BY p.id DESC LIMIT 1)`,
    'pid',
  )},
  CASE WHEN s.status = 'queued' THEN (SELECT COUNT(*) FROM sessions q WHERE q.status = 'queued'
     AND ${queueAheadOrAt('q', 's')}) END AS queuePosition, s.priority,
  CASE WHEN s.status IN ('running', 'waiting') THEN s.progress END AS progress,
  l.max_running AS rateLimitMax, l.until AS rateLimitUntil, s.pinned_at AS pinnedAt, NULL AS queuedFor, s.forked_from AS forkedFrom,
  CASE json_extract(s.metadata, '$.sandbox.state') WHEN 'sandboxed' THEN 'sandboxed'
    WHEN 'unsandboxed' THEN 'unsandboxed' || ifnull(': ' || json_extract(s.metadata, '$.sandbox.why'), '') END AS sandbox,
  json_extract(s.metadata, '$.zone.name') AS zone,
  s.review_of AS reviewOf
FROM sessions s
LEFT JOIN runtime_limits l ON l.runtime = s.runtime AND l.until > ?
WHERE s.project_id = ? AND (? OR s.archived_at IS NULL)
ORDER BY s.created_at, s.id`;
};

/** A project's sessions, oldest first. One query. */
export function listSessionRows(
  db: HasSqlite,
  f: { projectId: string; includeArchived?: boolean; detail?: ListDetail },
): SessionListRow[] {
  const { sql, make } = jsonRows(db, listSql(f.detail ?? 'full'));
  const rows = (
    db.sqlite
      .prepare(sql)
      .pluck()
      .all(Date.now(), f.projectId, f.includeArchived ? 1 : 0) as string[]
  ).map((r) => make(JSON.parse(r) as unknown[])) as SessionListRow[];
  for (const r of rows) {
    if (r.status === 'queued' && budgetReached(db, r.id)) r.queuedFor = 'over budget';
    if (r.progress !== null) r.progress = progressOf(r.progress as unknown as string);
  }
  return rows;
}

/** A row's stored progress (JSON text) as listings show it; unreadable: none. */
function progressOf(text: string): Progress | null {
  try {
    return publicProgress(JSON.parse(text) as ProgressRecord);
  } catch {
    return null;
  }
}

interface JsonRows {
  /** The listing with each row as one JSON array (SQLite's json_array), in the listing's order. */
  sql: string;
  /** `(r) => ({ name0: r[0], name1: r[1], … })`: one object shape, built in one literal. */
  make: (r: unknown[]) => unknown;
}

const jsonRowsOf = new Map<string, JsonRows>();

/**
 * Each row comes back as one string, parsed by JSON.parse, and made into an object by a function
 * written for these columns. better-sqlite3 builds a row's array (or object) with one V8 call per
 * column, ~1,000 instructions each: for 1,000 rows of thirty columns that was a fifth of
 * `klaude sessions` (60 M of 300 M instructions), against 33 M this way. JSON keeps every value
 * as it was: texts, NULLs, integers, and reals (SQLite writes the shortest text that reads back as
 * the same double).
 */
function jsonRows(db: HasSqlite, inner: string): JsonRows {
  let j = jsonRowsOf.get(inner);
  if (!j) {
    const names = db.sqlite
      .prepare(inner)
      .columns()
      .map((c) => c.name);
    // The names are this file's own column aliases (from the statement), not input.
    const make = new Function('r', `return {${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')}};`) as (
      r: unknown[],
    ) => unknown;
    const cols = names.map((n) => `"${n}"`).join(', ');
    j = { sql: `SELECT json_array(${cols}) FROM (${inner}) ORDER BY "createdAt", "id"`, make };
    jsonRowsOf.set(inner, j);
  }
  return j;
}

/**
 * Whether any record claims a process that is gone (a running instance of the project, or an open
 * process row): then `reconcile` (ownership/reconcile.ts) has work to do. Two indexed reads and
 * one liveness probe for all pids (pid + start time), so listings can skip loading the full
 * reconcile when nothing died.
 */
export function hasDeadProcesses(db: HasSqlite, projectId: string): boolean {
  const rows = db.sqlite
    .prepare(
      `SELECT pid, NULL AS pidStart FROM instances WHERE status = 'running' AND project_id = ?
       UNION SELECT pid, pid_start AS pidStart FROM runtime_process WHERE exited_at IS NULL`,
    )
    .all(projectId) as { pid: number; pidStart: number | null }[];
  return rows.length > 0 && !identities(rows).every(countsAsAlive);
}

/**
 * The project's change marker: count and max(updated_at) of its sessions (an index of its own),
 * and its open processes. Two small indexed reads; a write in another project leaves it as it was.
 */
export function projectChangeMarker(db: HasSqlite, projectId: string): string {
  const s = db.sqlite
    .prepare('SELECT count(*) AS n, ifnull(max(updated_at), 0) AS u FROM sessions WHERE project_id = ?')
    .get(projectId) as { n: number; u: number };
  const p = db.sqlite
    .prepare(
      `SELECT count(*) AS n, ifnull(max(p.id), 0) AS m FROM runtime_process p JOIN sessions s ON s.id = p.klaude_session_id
         WHERE p.exited_at IS NULL AND p.is_current = 1 AND s.project_id = ?`,
    )
    .get(projectId) as { n: number; m: number };
  return `${s.n}:${s.u}:${p.n}:${p.m}`;
}

/** Pids of a session's live processes, by kind (a kind is absent when none runs). */
export interface LiveProcesses {
  /** The PTY server hosting the session (`klaude talk`); it hosts others too: stop one through it (pty/launch.ts stopPtySession). */
  pty?: number;
  /** The current 'pty' row's id: a session restarted in the same PTY server gets a new one. */
  ptyRow?: number;
  /** A klaude foreground's claude. */
  claude?: number;
  /** A headless agent runtime. */
  runtime?: number;
}

/**
 * The project's sessions that have a current, live process, by session id. One indexed query and
 * one liveness probe (pid + start time) for the open rows (rows of dead processes are left for
 * `reconcile`).
 */
export function liveProcessesOfProject(db: HasSqlite, projectId: string): Map<string, LiveProcesses> {
  const rows = db.sqlite
    .prepare(
      `SELECT p.klaude_session_id AS sessionId, p.kind, p.pid, p.pid_start AS pidStart, p.id FROM runtime_process p
       JOIN sessions s ON s.id = p.klaude_session_id
       WHERE s.project_id = ? AND p.is_current = 1 AND p.exited_at IS NULL AND p.kind IN ('pty', 'claude', 'runtime')
       ORDER BY p.id`,
    )
    .all(projectId) as { sessionId: string; kind: string; pid: number; pidStart: number | null; id: number }[];
  const out = new Map<string, LiveProcesses>();
  for (const r of liveRows(rows)) {
    if (r.kind !== 'pty' && r.kind !== 'claude' && r.kind !== 'runtime') continue;
    const cur = out.get(r.sessionId) ?? {};
    cur[r.kind] = r.pid;
    if (r.kind === 'pty') cur.ptyRow = r.id;
    out.set(r.sessionId, cur);
  }
  return out;
}

/** Agent type per session id (ids that do not exist are absent). One query. */
export function sessionTypes(db: HasSqlite, ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = db.sqlite
      .prepare(`SELECT id, type FROM sessions WHERE id IN (${chunk.map(() => '?').join(',')})`)
      .all(...chunk) as { id: string; type: string }[];
    for (const r of rows) out.set(r.id, r.type);
  }
  return out;
}

export function sessionExists(db: HasSqlite, id: string): boolean {
  return db.sqlite.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
}

/** Unacknowledged updates from any session of a project with id > `afterId`, oldest first. */
export function projectPendingUpdates(db: HasSqlite, projectId: string, afterId = 0): UpdateRow[] {
  return db.sqlite
    .prepare(
      `SELECT u.id, u.session_id AS sessionId, u.parent_session_id AS parentSessionId, u.text, u.kind,
         u.created_at AS createdAt, u.acknowledged_at AS acknowledgedAt
       FROM agent_updates u JOIN sessions s ON s.id = u.session_id
       WHERE s.project_id = ? AND u.acknowledged_at IS NULL AND u.id > ?
       ORDER BY u.id`,
    )
    .all(projectId, afterId) as UpdateRow[];
}

/** The projects of this home that have sessions, the one most recently active first. */
export function projectsWithSessions(db: HasSqlite): { id: string; rootPath: string }[] {
  return db.sqlite
    .prepare(
      `SELECT p.id, p.root_path AS rootPath FROM projects p
       JOIN (SELECT project_id, max(updated_at) AS u FROM sessions GROUP BY project_id) s ON s.project_id = p.id
       ORDER BY s.u DESC`,
    )
    .all() as { id: string; rootPath: string }[];
}

/** Every project of this home, by root path (the web companion serves them all; no drizzle). */
export function listProjectRoots(db: HasSqlite): { id: string; rootPath: string }[] {
  return db.sqlite.prepare('SELECT id, root_path AS rootPath FROM projects ORDER BY root_path').all() as {
    id: string;
    rootPath: string;
  }[];
}
