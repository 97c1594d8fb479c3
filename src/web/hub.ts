/**
 * The live state every page sees: the sessions of every project of this home, their live
 * processes and pending permission requests. One SessionsFeed per project (feeds/, the dashboard's
 * own: DB change probe, no polling); a change in any of them makes a new numbered state, pushed to
 * every open page. Projects that appear later are found on the next DB write.
 */
import type { HasSqlite } from '../db/connection.js';
import { listProjectRoots } from '../db/repos/listing.js';
import { watchDbWrites } from '../db/watch.js';
import { SessionsFeed, type SessionsSnapshot } from '../feeds/sessions-feed.js';
import type { SessionView } from '../feeds/session-tree.js';
import type { ApprovalRow } from '../db/repos/approvals.js';
import type { ReviewView } from '../db/repos/reviews.js';
import { loadAgentDefinitions } from '../agent-types/index.js';

/** One session as the page gets it. */
export type WebSession = SessionView & {
  projectId: string;
  /** Live processes: a PTY session, a headless runtime, a foreground claude. */
  pty: boolean;
  runtimeLive: boolean;
  approvals: Pick<ApprovalRow, 'id' | 'toolName' | 'summary' | 'createdAt' | 'suggestedRule'>[];
  /** Its reviews (`klaude review`), oldest first: each reviewer and its findings. */
  reviews: readonly ReviewView[];
};

export interface WebProject {
  id: string;
  root: string;
  /** The agent types `klaude start` accepts in this project (the start form's picker). */
  agentTypes: string[];
  sessions: WebSession[];
}

type ProjectRef = { id: string; rootPath: string };

export interface WebState {
  version: number;
  projects: WebProject[];
}

/** The page's frame: changes closer together than this go out as one state. */
const PUSH_MS = 50;

/**
 * The live state's numbers restart with each server, so a state's event id names the server too
 * (its start, and random bits): a page that reconnects to a restarted server with the id it last
 * saw never matches a new state of the same number, and gets the state again.
 */
const epoch = (): string => `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;

export class Hub {
  /** This server's part of every state's event id. */
  readonly epoch = epoch();
  private feeds = new Map<string, { project: ProjectRef; feed: SessionsFeed; stop: () => void }>();
  private listeners = new Set<(s: WebState) => void>();
  private state: WebState = { version: 0, projects: [] };
  private timer: NodeJS.Timeout | undefined;
  private stopWatch: () => void;

  constructor(private readonly db: HasSqlite & { path: string }) {
    this.syncProjects();
    this.rebuild();
    this.stopWatch = watchDbWrites(db.path, () => this.syncProjects());
  }

  get current(): WebState {
    return this.state;
  }

  /** A state's event id: `<epoch>-<version>` (see epoch above). */
  eventId(s: WebState): string {
    return `${this.epoch}-${s.version}`;
  }

  subscribe(fn: (s: WebState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** After the server's own writes: look again now. */
  refresh(): void {
    for (const f of this.feeds.values()) f.feed.refresh();
  }

  /** A session as the pages see it now (sessions of every project, archived ones included). */
  session(id: string): WebSession | undefined {
    for (const p of this.state.projects) {
      const s = p.sessions.find((x) => x.id === id);
      if (s) return s;
    }
    return undefined;
  }

  close(): void {
    clearTimeout(this.timer);
    this.stopWatch();
    for (const f of this.feeds.values()) {
      f.stop();
      f.feed.close();
    }
    this.feeds.clear();
  }

  private syncProjects(): void {
    let rows: ProjectRef[];
    try {
      rows = listProjectRoots(this.db);
    } catch {
      return;
    }
    for (const p of rows) {
      if (this.feeds.has(p.id)) continue;
      const feed = new SessionsFeed({ db: this.db, projectId: p.id, frameMs: PUSH_MS });
      const stop = feed.subscribe(() => this.schedule());
      this.feeds.set(p.id, { project: p, feed, stop });
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.rebuild();
      for (const l of [...this.listeners]) l(this.state);
    }, PUSH_MS);
  }

  private rebuild(): void {
    const projects: WebProject[] = [];
    for (const { project, feed } of this.feeds.values()) {
      const sessions = webSessions(project.id, feed.getSnapshot());
      projects.push({ id: project.id, root: project.rootPath, agentTypes: agentTypes(project.rootPath), sessions });
    }
    this.state = { version: this.state.version + 1, projects };
  }
}

/** As `klaude start` in that directory reads them (definitions.ts keeps them, looked at again every 2 s). */
function agentTypes(root: string): string[] {
  try {
    return loadAgentDefinitions({ cwd: root }).agents.map((a) => a.name);
  } catch {
    return [];
  }
}

const NO_REVIEWS: readonly ReviewView[] = [];

function webSessions(projectId: string, snap: SessionsSnapshot): WebSession[] {
  return snap.sessions.map((s) => {
    const p = snap.processes.get(s.id);
    return {
      ...s,
      projectId,
      pty: p?.pty !== undefined,
      runtimeLive: p?.runtime !== undefined,
      approvals: (snap.approvals.get(s.id) ?? []).map((a) => ({
        id: a.id,
        toolName: a.toolName,
        summary: a.summary,
        createdAt: a.createdAt,
        suggestedRule: a.suggestedRule,
      })),
      reviews: snap.reviews?.get(s.id) ?? NO_REVIEWS,
    };
  });
}
