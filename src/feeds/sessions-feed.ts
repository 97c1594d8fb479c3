/**
 * The project's sessions, live, without polling. Any process that changes the DB (hooks,
 * agent runtimes, other supervisors, `klaude` commands) writes the SQLite WAL, so a file
 * notification on the DB's directory says "something changed"; the supervisor's own events
 * call `poke()` too. Each notification asks for a check, at most once per frame (a burst of
 * writes costs one), and the check is cheap before it is thorough:
 *   1. `PRAGMA data_version`: did any other connection commit since the last check? (no I/O)
 *   2. this project's change marker: count and max(updated_at) of its sessions (an index of
 *      its own), and its open processes; a write in another project leaves it as it was;
 *   3. only then the listing query (`queries` counts those).
 * No notification, no timer, no work.
 */
import { dataVersion, type HasSqlite } from '../db/connection.js';
import { projectPendingApprovals, type ApprovalRow } from '../db/repos/approvals.js';
import { reviewsOfProject, type ReviewView } from '../db/repos/reviews.js';
import {
  listSessionRows,
  liveProcessesOfProject,
  projectChangeMarker,
  type LiveProcesses,
} from '../db/repos/listing.js';
import { watchDbWrites } from '../db/watch.js';
import { Emitter, type Source } from './store.js';
import type { SessionView } from './session-tree.js';
import type { ProjectRef } from './project-tree.js';

export type { ApprovalRow, LiveProcesses };

export interface SessionsSnapshot {
  sessions: readonly SessionView[];
  /** Live processes (PTY host, foreground claude, headless runtime) by session id. */
  processes: ReadonlyMap<string, LiveProcesses>;
  /** Pending permission requests by session id, oldest first. */
  approvals: ReadonlyMap<string, readonly ApprovalRow[]>;
  /** Reviews (`klaude review`) by the session they review, oldest first (absent: none read, e.g. a test's snapshot). */
  reviews?: ReadonlyMap<string, readonly ReviewView[]>;
  /** Bumped on every change. */
  version: number;
  /** Last query error (the previous sessions stay shown). */
  error: string | null;
  /** Every project of the home is shown (projects-feed.ts), in this order; absent: this project only. */
  projects?: readonly ProjectRef[];
}

export interface SessionsFeedOptions {
  /** Any open connection (the drizzle-free one is enough); `path` is the DB file, or ':memory:'. */
  db: HasSqlite & { path: string };
  projectId: string;
  /** Minimum time between two queries (one frame). */
  frameMs: number;
  /** Watch the DB files (off in tests that poke by hand). Default true for file DBs. */
  watchFiles?: boolean;
  onError?: (err: unknown) => void;
}

export class SessionsFeed extends Emitter implements Source<SessionsSnapshot> {
  private snapshot: SessionsSnapshot = {
    sessions: [],
    processes: new Map(),
    approvals: new Map(),
    version: 0,
    error: null,
  };
  private signature = '';
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private lastQueryAt = 0;
  private stopWatch: (() => void) | undefined;
  private closed = false;
  /** Listing queries run (diagnostics, bench). */
  queries = 0;
  /** Change-marker probes run (step 2 above). */
  probes = 0;
  private dataVersion = -1;
  private poked = false;
  private marker = '';

  constructor(private readonly opts: SessionsFeedOptions) {
    super();
    this.query();
    if (opts.watchFiles ?? opts.db.path !== ':memory:') this.watchDb();
  }

  getSnapshot = (): SessionsSnapshot => this.snapshot;

  /** Something may have changed (said by the supervisor: the data_version step is skipped): check within a frame. */
  poke = (): void => {
    this.poked = true;
    this.schedule();
  };

  private schedule(): void {
    if (this.closed || this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastQueryAt + this.opts.frameMs - Date.now();
    const run = (): void => {
      this.timer = undefined;
      this.immediate = undefined;
      this.scheduled = false;
      this.check();
    };
    if (wait <= 0) this.immediate = setImmediate(run);
    else this.timer = setTimeout(run, wait);
  }

  /** Query now (after the dashboard's own writes, so the change shows in the same frame). */
  refresh(): void {
    this.query();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.stopWatch?.();
    this.stopWatch = undefined;
  }

  /** The cheap checks, then the query only when this project's rows changed. */
  private check(): void {
    if (this.closed) return;
    this.lastQueryAt = Date.now();
    try {
      const v = dataVersion(this.opts.db);
      const poked = this.poked;
      this.poked = false;
      if (v === this.dataVersion && !poked && this.snapshot.error === null) return;
      this.dataVersion = v;
      const m = this.probe();
      if (m === this.marker && this.snapshot.error === null) return;
    } catch {
      /* the query below reports the problem */
    }
    this.query();
  }

  /** This project's change marker (two small indexed reads). */
  private probe(): string {
    this.probes++;
    return projectChangeMarker(this.opts.db, this.opts.projectId);
  }

  private query(): void {
    if (this.closed) return;
    try {
      this.marker = this.probe();
    } catch {
      /* reported by the listing query */
    }
    this.lastQueryAt = Date.now();
    this.queries++;
    let rows: SessionView[];
    let processes: Map<string, LiveProcesses>;
    const approvals = new Map<string, ApprovalRow[]>();
    let reviews: Map<string, ReviewView[]>;
    try {
      rows = listSessionRows(this.opts.db, { projectId: this.opts.projectId, includeArchived: true });
      processes = liveProcessesOfProject(this.opts.db, this.opts.projectId);
      for (const a of projectPendingApprovals(this.opts.db, this.opts.projectId))
        approvals.set(a.sessionId, [...(approvals.get(a.sessionId) ?? []), a]);
      reviews = reviewsOfProject(this.opts.db, this.opts.projectId);
    } catch (err) {
      this.opts.onError?.(err);
      const msg = `cannot read sessions: ${(err as Error).message}`;
      if (this.snapshot.error !== msg) {
        this.snapshot = { ...this.snapshot, error: msg, version: this.snapshot.version + 1 };
        this.emit();
      }
      return;
    }
    const procSig = [...processes]
      .map(([id, p]) => `${id}:${p.pty ?? ''}:${p.ptyRow ?? ''}:${p.claude ?? ''}:${p.runtime ?? ''}`)
      .join(',');
    const askSig = [...approvals.values()]
      .flat()
      .map((a) => a.id)
      .join(',');
    const sig = `${rows.map((r) => `${r.id}|${r.updatedAt}|${r.status}|${r.archivedAt}|${r.parentId}`).join('\n')}\n${procSig}\n${askSig}`;
    if (sig === this.signature && this.snapshot.error === null) return;
    this.signature = sig;
    // Frozen: React (and anyone else) may keep a snapshot; the next change makes a new one.
    for (const r of rows) Object.freeze(r);
    this.snapshot = Object.freeze({
      sessions: Object.freeze(rows),
      processes,
      approvals,
      reviews,
      version: this.snapshot.version + 1,
      error: null,
    });
    this.emit();
  }

  /**
   * Hear of writes to the DB and its WAL through the process's one watch of the DB's directory
   * (db/watch.ts), at once: schedule() coalesces them per frame.
   */
  private watchDb(): void {
    this.stopWatch = watchDbWrites(
      this.opts.db.path,
      () => this.schedule(),
      (err) => this.opts.onError?.(err),
      { immediate: true },
    );
  }
}
