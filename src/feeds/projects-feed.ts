/**
 * The dashboard's sessions, of this project or of every project of the home (`klaude ui --all`,
 * `P`). This project's SessionsFeed is always there; while every project is shown, each other
 * project with sessions gets a SessionsFeed of its own (the same DB change probe: nothing polls),
 * and a DB write looks for projects that appeared. Showing one project again closes them, so a
 * dashboard of one project does no work for the others.
 */
import { projectsWithSessions } from '../db/repos/listing.js';
import { dataVersion, type HasSqlite } from '../db/connection.js';
import { watchDbWrites } from '../db/watch.js';
import type { ProjectRef } from './project-tree.js';
import type { ReviewView } from '../db/repos/reviews.js';
import { SessionsFeed, type ApprovalRow, type LiveProcesses, type SessionsSnapshot } from './sessions-feed.js';
import { Emitter, type Source } from './store.js';

export interface ProjectsFeedOptions {
  db: HasSqlite & { path: string };
  /** This project's feed (the supervisor's own: its pokes and refreshes). */
  home: SessionsFeed;
  homeProject: ProjectRef;
  frameMs: number;
  /** Watch the DB for new projects (off in tests, which call refresh()). Default: as the home feed. */
  watchFiles?: boolean;
}

interface Other {
  project: ProjectRef;
  feed: SessionsFeed;
  stop: () => void;
}

export class ProjectsFeed extends Emitter implements Source<SessionsSnapshot> {
  private others = new Map<string, Other>();
  private order: ProjectRef[] = [];
  private merged: SessionsSnapshot | null = null;
  private version = 0;
  private stopWatch: (() => void) | undefined;
  private all = false;
  /** PRAGMA data_version at the last look for projects: no commit since, no query. */
  private seenVersion = -1;
  private readonly stopHome: () => void;

  constructor(private readonly o: ProjectsFeedOptions) {
    super();
    this.stopHome = o.home.subscribe(() => this.changed());
  }

  get showingAll(): boolean {
    return this.all;
  }

  getSnapshot = (): SessionsSnapshot => {
    if (!this.all) return this.o.home.getSnapshot();
    this.merged ??= this.merge();
    return this.merged;
  };

  /** The project a session shown now belongs to (null: not shown). */
  projectOf(sessionId: string): ProjectRef | null {
    const s = this.getSnapshot().sessions.find((x) => x.id === sessionId);
    if (!s) return null;
    if (!s.projectId || s.projectId === this.o.homeProject.id) return this.o.homeProject;
    return this.others.get(s.projectId)?.project ?? null;
  }

  /** Show every project (opening their feeds) or this one only (closing them). */
  setAll(on: boolean): void {
    if (on === this.all) return;
    this.all = on;
    if (on) {
      this.syncProjects();
      if (this.o.watchFiles ?? this.o.db.path !== ':memory:')
        this.stopWatch = watchDbWrites(this.o.db.path, () => this.syncProjects(true));
    } else {
      this.stopWatch?.();
      this.stopWatch = undefined;
      for (const x of this.others.values()) this.closeOther(x);
      this.others.clear();
    }
    this.changed();
  }

  poke = (): void => {
    this.o.home.poke();
    for (const x of this.others.values()) x.feed.poke();
  };

  refresh(): void {
    if (this.all) this.syncProjects();
    this.o.home.refresh();
    for (const x of this.others.values()) x.feed.refresh();
  }

  close(): void {
    this.setAll(false);
    this.stopHome();
  }

  /** The projects with sessions, most recently active first (this one always, first). */
  private syncProjects(onlyAfterCommit = false): void {
    let found: { id: string; rootPath: string }[];
    try {
      const v = dataVersion(this.o.db);
      if (onlyAfterCommit && v === this.seenVersion) return;
      this.seenVersion = v;
      found = projectsWithSessions(this.o.db);
    } catch {
      return; // the feeds report a DB that can't be read
    }
    const home = this.o.homeProject;
    const order = [home, ...found.filter((p) => p.id !== home.id).map((p) => ({ id: p.id, root: p.rootPath }))];
    let added = false;
    for (const p of order.slice(1)) {
      if (this.others.has(p.id)) continue;
      const feed = new SessionsFeed({
        db: this.o.db,
        projectId: p.id,
        frameMs: this.o.frameMs,
        ...(this.o.watchFiles !== undefined ? { watchFiles: this.o.watchFiles } : {}),
      });
      this.others.set(p.id, { project: p, feed, stop: feed.subscribe(() => this.changed()) });
      added = true;
    }
    const same = order.length === this.order.length && order.every((p, i) => p.id === this.order[i]!.id);
    this.order = order;
    if (added || !same) this.changed();
  }

  private closeOther(x: Other): void {
    x.stop();
    x.feed.close();
  }

  private changed(): void {
    this.merged = null;
    this.version++;
    this.emit();
  }

  private merge(): SessionsSnapshot {
    const parts = [this.o.home.getSnapshot(), ...[...this.others.values()].map((x) => x.feed.getSnapshot())];
    const processes = new Map<string, LiveProcesses>();
    const approvals = new Map<string, readonly ApprovalRow[]>();
    const reviews = new Map<string, readonly ReviewView[]>();
    for (const p of parts) {
      for (const [k, v] of p.processes) processes.set(k, v);
      for (const [k, v] of p.approvals) approvals.set(k, v);
      for (const [k, v] of p.reviews ?? []) reviews.set(k, v);
    }
    return Object.freeze({
      sessions: Object.freeze(parts.flatMap((p) => p.sessions)),
      processes,
      approvals,
      reviews,
      version: this.version,
      error: parts.find((p) => p.error)?.error ?? null,
      projects: this.order.length ? this.order : [this.o.homeProject],
    });
  }
}
