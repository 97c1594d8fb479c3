/**
 * What the two phases of `klaude ui` share: the options it was started with, and the shell the
 * first phase (ui-supervisor.ts) hands to the services (services.ts) and their parts.
 */
import type { ReducerStore } from '../feeds/store.js';
import type { LogFeed } from '../feeds/log-feed.js';
import type { PtyPreviewFeed } from '../feeds/pty-preview.js';
import type { SessionsFeed } from '../feeds/sessions-feed.js';
import type { ProjectsFeed } from '../feeds/projects-feed.js';
import type { ClaudePassthrough } from '../supervisor/foreground-args.js';
import type { DashboardActions } from '../ui/deps.js';
import type { DashboardHost } from '../ui/host.js';
import type { UiAction, UiState } from '../ui/state/ui-state.js';

export interface UiSupervisorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeArgs: string[];
  /** Every project of the home in the tree from the start (`klaude ui --all`; P toggles). */
  allProjects?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** What the services get from the first phase. */
export interface UiShell {
  opts: UiSupervisorOptions;
  home: string;
  cwd: string;
  root: string;
  hash: string;
  instanceId: string;
  passthrough: ClaudePassthrough;
  host: DashboardHost;
  /** This project's sessions (the notifier, the quit note, the supervisor's pokes). */
  sessions: SessionsFeed;
  /** What the tree shows: this project's sessions or every project's (P). */
  feed: ProjectsFeed;
  logFeed: LogFeed;
  preview: PtyPreviewFeed;
  ui: ReducerStore<UiState, UiAction>;
  /** Plug the real actions in (until then keys say klaude is starting). */
  attach(actions: DashboardActions): void;
  /** An exit asked for before the services were up (q, SIGTERM, SIGHUP): its code. */
  stopRequested(): number | null;
  /** Who handles Ctrl-Z / SIGTSTP from now on (the services know when claude has the terminal). */
  onSuspend(fn: () => void): void;
  setLogsDir(dir: string | null): void;
  stderr: NodeJS.WriteStream;
}
