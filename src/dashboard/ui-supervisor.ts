/**
 * `klaude ui`: a supervisor whose home face is the dashboard.
 *
 * Startup paints first: this module loads only what the first frame needs (Ink, the stores, a
 * drizzle-free read of the sessions) and shows the dashboard; then services.ts loads the rest
 * (config, the ORM, the instance record, the Switcher, the control socket) and plugs the actions
 * in. A key pressed in between is told that klaude is still starting.
 */
import { newId } from '../db/ids.js';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, klaudeHome, projectHash, projectRoot, sessionLogPath } from '../config/paths.js';
import { openFastDb, type FastDb } from '../db/fast.js';
import { KlaudeError } from '../lib/errors.js';
import { baselineCodeOnly, keepYoungGenerationSmall } from '../lib/heap.js';
import { Clock } from '../feeds/clock.js';
import { LogFeed } from '../feeds/log-feed.js';
import { transcriptsOf } from '../db/repos/transcripts.js';
import { PtyPreviewFeed } from '../feeds/pty-preview.js';
import { SessionsFeed } from '../feeds/sessions-feed.js';
import { ProjectsFeed } from '../feeds/projects-feed.js';
import type { SessionView } from '../feeds/session-tree.js';
import type { DashboardActions } from '../ui/deps.js';
import { DashboardHost } from '../ui/host.js';
import { ReducerStore } from '../feeds/store.js';
import { initialUiState, uiReducer, type UiAction, type UiState } from '../ui/state/ui-state.js';
import { themeFor } from '../ui/theme.js';
import { parseClaudePassthrough } from '../supervisor/foreground-args.js';
import type { UiShell, UiSupervisorOptions } from './shell.js';

/**
 * Actions that exist from the first frame: until the real ones are attached they wait for them
 * (a key pressed while klaude finishes starting acts a moment later instead of failing).
 */
function lateActions(
  host: () => DashboardHost,
  quit: () => void,
): { actions: DashboardActions; attach(a: DashboardActions): void } {
  let real: DashboardActions | null = null;
  let attach!: (a: DashboardActions) => void;
  const ready = new Promise<DashboardActions>((resolve) => (attach = resolve));
  const later = async (): Promise<DashboardActions> => real ?? (await ready);
  const actions: DashboardActions = {
    open: async (id) => (await later()).open(id),
    newSession: async () => (await later()).newSession(),
    start: async (req) => (await later()).start(req),
    message: async (id, p) => (await later()).message(id, p),
    interrupt: async (ids) => (await later()).interrupt(ids),
    archive: async (ids, a) => (await later()).archive(ids, a),
    mark: async (id, m) => (await later()).mark(id, m),
    answer: async (id, a) => (await later()).answer(id, a),
    rulePath: (id) => (real ? real.rulePath(id) : '.claude/settings.local.json'),
    diff: async (id) => (await later()).diff(id),
    sendReview: async (id) => (await later()).sendReview(id),
    startReview: async (id) => (await later()).startReview(id),
    agentTypes: async () => (await later()).agentTypes(),
    talk: async (id) => (await later()).talk(id),
    peek: async (id, w) => (await later()).peek(id, w),
    reply: async (id, t) => (await later()).reply(id, t),
    quit: (o) => (real ? real.quit(o) : quit()),
    redraw: () => (real ? real.redraw() : host().redraw()),
    copy: (text) => void later().then((a) => a.copy(text)),
    suspend: () => (real ? real.suspend() : process.kill(process.pid, 'SIGTSTP')),
  };
  return {
    actions,
    attach: (a) => {
      real = a;
      attach(a);
    },
  };
}

/** The terminal klaude ui runs in; without one it refuses before anything is created. */
function terminalOf(opts: UiSupervisorOptions): {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
} {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new KlaudeError('E_USAGE', 'klaude ui needs a terminal (stdin and stdout must be a TTY)', {
      hint: 'run it in a terminal; `klaude sessions` and `klaude logs -f` work without one',
    });
  }
  return { stdin, stdout, stderr };
}

/** The claude arguments, KLAUDE_HOME and the project, in that order (bad arguments create nothing). */
function locate(opts: UiSupervisorOptions): Pick<UiShell, 'passthrough' | 'home' | 'cwd' | 'root' | 'hash'> {
  const passthrough = parseClaudePassthrough(opts.claudeArgs);
  const home = ensurePrivateDir(klaudeHome(opts.env));
  const cwd = realpathSync(opts.cwd);
  const root = projectRoot(cwd);
  return { passthrough, home, cwd, root, hash: projectHash(root) };
}

interface Feeds {
  sessions: SessionsFeed;
  all: ProjectsFeed;
  clock: Clock;
  logFeed: LogFeed;
  preview: PtyPreviewFeed;
  ui: ReducerStore<UiState, UiAction>;
}

/** The dashboard's live data, read from the fast connection. */
function openFeeds(db: FastDb, home: string, where: { hash: string; root: string }, opts: UiSupervisorOptions): Feeds {
  const { hash } = where;
  const env = opts.env;
  const sessions = new SessionsFeed({ db, projectId: hash, frameMs: 33 });
  const all = new ProjectsFeed({ db, home: sessions, homeProject: { id: hash, root: where.root }, frameMs: 33 });
  // One clock for the tree's running rows and the log's streamed text (one frame a second for both).
  const clock = new Clock();
  const logFeed = new LogFeed({
    beat: clock,
    // Sessions that ran interactively show Claude's transcripts merged in (one query per selection).
    transcripts: (id) => {
      const s = all.getSnapshot().sessions.find((x) => x.id === id);
      return s ? transcriptsOf(db, { id, type: s.type }) : [];
    },
  });
  // The PTY client loads only when a PTY session is first shown. Its host sends the screen's
  // changed rows, at most one frame per dashboard frame: no terminal emulator runs here.
  const preview = new PtyPreviewFeed({
    frameMs: 33,
    open: async (sessionId, h, o) =>
      (await import('../pty/viewer.js')).openPtyViewer(home, all.projectOf(sessionId)?.id ?? hash, sessionId, h, env, {
        gridMs: o.frameMs,
      }),
  });
  const ui = new ReducerStore<UiState, UiAction>(uiReducer, {
    ...initialUiState,
    allProjects: opts.allProjects === true,
  });
  // P (and --all): the tree's feed follows the state.
  all.setAll(ui.getSnapshot().allProjects);
  ui.subscribe(() => all.setAll(ui.getSnapshot().allProjects));
  return { sessions, all, clock, logFeed, preview, ui };
}

function closeFeeds(f: Feeds): void {
  f.all.close();
  f.sessions.close();
  f.logFeed.close();
  f.preview.close();
}

interface HostInput {
  feeds: Feeds;
  actions: DashboardActions;
  env: NodeJS.ProcessEnv;
  project: string;
  instanceId: string;
  logPathOf: (s: SessionView) => string | null;
  term: ReturnType<typeof terminalOf>;
}

/** The Ink host; a crash in it restores the terminal and exits 70. */
function createHost(i: HostInput): DashboardHost {
  const { all, logFeed, preview, ui, clock } = i.feeds;
  const { stdin, stdout, stderr } = i.term;
  const host: DashboardHost = new DashboardHost({
    deps: {
      sessions: all,
      log: logFeed,
      preview,
      ui,
      theme: themeFor(i.env),
      actions: i.actions,
      info: { project: i.project, instanceId: i.instanceId },
      clock,
      logPathOf: i.logPathOf,
    },
    stdin,
    stdout,
    stderr,
    maxFps: 30,
    ...(i.env.KLAUDE_UI_STATS ? { statsFile: i.env.KLAUDE_UI_STATS } : {}),
    onCrash: (err) => {
      host.screen.emergencyRestore();
      stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
      process.exit(70);
    },
  });
  return host;
}

/**
 * Exits and Ctrl-Z before the services are up: q, SIGTERM and SIGHUP are remembered as the code
 * to stop with once they are, and Ctrl-Z uses the dashboard's own suspend until the services name
 * another handler.
 */
class EarlySignals {
  stopCode: number | null = null;

  constructor(private readonly host: () => DashboardHost) {}

  readonly quit = (code: number): void => {
    this.stopCode ??= code;
  };

  /** Ctrl-Z before the services are up: the dashboard's own suspend/resume path, then stop. */
  private suspend = (): void => {
    this.host().suspend();
    process.once('SIGCONT', () => this.host().resume());
    process.kill(process.pid, 'SIGSTOP');
  };

  onSuspend(fn: () => void): void {
    this.suspend = fn;
  }

  // Until the services install theirs: any exit leaves the terminal as it found it.
  private readonly restore = (): void => {
    const host = this.host();
    if (host.screen.inAltScreen) host.screen.emergencyRestore();
  };
  private readonly term = (): void => this.quit(143);
  private readonly hup = (): void => this.quit(129);
  private readonly tstp = (): void => this.suspend();

  install(): void {
    process.on('exit', this.restore);
    process.on('SIGTERM', this.term);
    process.on('SIGHUP', this.hup);
    process.on('SIGTSTP', this.tstp);
  }

  /** The services are loaded: SIGTERM and SIGHUP are theirs. */
  releaseStops(): void {
    process.off('SIGTERM', this.term);
    process.off('SIGHUP', this.hup);
  }

  removeSignals(): void {
    this.releaseStops();
    process.off('SIGTSTP', this.tstp);
  }

  removeRestore(): void {
    process.off('exit', this.restore);
  }
}

/**
 * The dashboard's V8 settings (lib/heap.ts), set once its first frame is out. Built, it started with
 * them already (scripts/build.mjs, `BUNDLE_FLAGS`), and this is when the launcher saves its code
 * cache (before any change of V8's flags): by then the cache holds all the code a start runs.
 */
function longLivedHeap(): void {
  keepYoungGenerationSmall();
  baselineCodeOnly();
}

export async function runUiSupervisor(opts: UiSupervisorOptions): Promise<number> {
  const term = terminalOf(opts);
  const where = locate(opts);
  const { home, hash } = where;
  // The drizzle-free connection; a missing or older DB is created/migrated by the full client.
  const db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
  const instanceId = newId();

  let logsDir: string | null = null;
  const feeds = openFeeds(db, home, where, opts);
  const early = new EarlySignals(() => host);
  const late = lateActions(
    () => host,
    () => early.quit(0),
  );
  const host = createHost({
    feeds,
    actions: late.actions,
    env: opts.env,
    project: path.basename(where.root),
    instanceId,
    logPathOf: (s) => s.logPath ?? sessionLogPath(home, s.projectId ?? hash, s.id, logsDir),
    term,
  });
  early.install();

  try {
    host.show();
    const { runUiServices } = await import('./services.js');
    longLivedHeap();
    early.releaseStops();
    const { sessions, logFeed, preview, ui } = feeds;
    const shell: UiShell = {
      opts,
      ...where,
      instanceId,
      host,
      sessions,
      feed: feeds.all,
      logFeed,
      preview,
      ui,
      attach: late.attach,
      stopRequested: () => early.stopCode,
      onSuspend: (fn) => early.onSuspend(fn),
      setLogsDir: (d) => (logsDir = d),
      stderr: term.stderr,
    };
    return await runUiServices(shell);
  } finally {
    early.removeSignals();
    host.close();
    closeFeeds(feeds);
    db.close();
    early.removeRestore();
    term.stdin.unref();
  }
}
