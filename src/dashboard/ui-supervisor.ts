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
import { openFastDb } from '../db/fast.js';
import { KlaudeError } from '../lib/errors.js';
import { Clock } from '../feeds/clock.js';
import { LogFeed } from '../feeds/log-feed.js';
import { transcriptsOf } from '../db/repos/transcripts.js';
import { PtyPreviewFeed } from '../feeds/pty-preview.js';
import { SessionsFeed } from '../feeds/sessions-feed.js';
import type { DashboardActions } from '../ui/deps.js';
import { DashboardHost } from '../ui/host.js';
import { ReducerStore } from '../feeds/store.js';
import { initialUiState, uiReducer, type UiAction, type UiState } from '../ui/state/ui-state.js';
import { themeFor } from '../ui/theme.js';
import { parseClaudePassthrough } from '../supervisor/foreground-args.js';

export interface UiSupervisorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeArgs: string[];
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
  passthrough: ReturnType<typeof parseClaudePassthrough>;
  host: DashboardHost;
  sessions: SessionsFeed;
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
    answer: async (id, a) => (await later()).answer(id, a),
    rulePath: (id) => (real ? real.rulePath(id) : '.claude/settings.local.json'),
    diff: async (id) => (await later()).diff(id),
    agentTypes: async () => (await later()).agentTypes(),
    talk: async (id) => (await later()).talk(id),
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

export async function runUiSupervisor(opts: UiSupervisorOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new KlaudeError('E_USAGE', 'klaude ui needs a terminal (stdin and stdout must be a TTY)', {
      hint: 'run it in a terminal; `klaude sessions` and `klaude logs -f` work without one',
    });
  }
  const passthrough = parseClaudePassthrough(opts.claudeArgs);
  const home = ensurePrivateDir(klaudeHome(opts.env));
  const cwd = realpathSync(opts.cwd);
  const root = projectRoot(cwd);
  const hash = projectHash(root);
  // The drizzle-free connection; a missing or older DB is created/migrated by the full client.
  const db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
  const instanceId = newId();

  let logsDir: string | null = null;
  const sessions = new SessionsFeed({ db, projectId: hash, frameMs: 33 });
  // One clock for the tree's running rows and the log's streamed text (one frame a second for both).
  const clock = new Clock();
  const logFeed = new LogFeed({
    beat: clock,
    // Sessions that ran interactively show Claude's transcripts merged in (one query per selection).
    transcripts: (id) => {
      const s = sessions.getSnapshot().sessions.find((x) => x.id === id);
      return s ? transcriptsOf(db, { id, type: s.type }) : [];
    },
  });
  // The PTY client loads only when a PTY session is first shown. Its host sends the screen's
  // changed rows, at most one frame per dashboard frame: no terminal emulator runs here.
  const preview = new PtyPreviewFeed({
    frameMs: 33,
    open: async (sessionId, h, o) =>
      (await import('../pty/viewer.js')).openPtyViewer(home, hash, sessionId, h, opts.env, { gridMs: o.frameMs }),
  });
  const ui = new ReducerStore<UiState, UiAction>(uiReducer, initialUiState);
  let stopCode: number | null = null;
  const quitEarly = (code: number): void => {
    stopCode ??= code;
  };
  const late = lateActions(
    () => host,
    () => quitEarly(0),
  );
  const host: DashboardHost = new DashboardHost({
    deps: {
      sessions,
      log: logFeed,
      preview,
      ui,
      theme: themeFor(opts.env),
      actions: late.actions,
      info: { project: path.basename(root), instanceId },
      clock,
      logPathOf: (s) => s.logPath ?? sessionLogPath(home, hash, s.id, logsDir),
    },
    stdin,
    stdout,
    stderr,
    maxFps: 30,
    onCrash: (err) => {
      host.screen.emergencyRestore();
      stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
      process.exit(70);
    },
  });
  // Until the services install theirs: any exit leaves the terminal as it found it.
  const restore = (): void => {
    if (host.screen.inAltScreen) host.screen.emergencyRestore();
  };
  const term = (): void => quitEarly(143);
  const hup = (): void => quitEarly(129);
  /** Ctrl-Z before the services are up: the dashboard's own suspend/resume path, then stop. */
  let suspend = (): void => {
    host.suspend();
    process.once('SIGCONT', () => host.resume());
    process.kill(process.pid, 'SIGSTOP');
  };
  const tstp = (): void => suspend();
  process.on('exit', restore);
  process.on('SIGTERM', term);
  process.on('SIGHUP', hup);
  process.on('SIGTSTP', tstp);

  try {
    host.show();
    const { runUiServices } = await import('./services.js');
    process.off('SIGTERM', term);
    process.off('SIGHUP', hup);
    const shell: UiShell = {
      opts,
      home,
      cwd,
      root,
      hash,
      instanceId,
      passthrough,
      host,
      sessions,
      logFeed,
      preview,
      ui,
      attach: late.attach,
      stopRequested: () => stopCode,
      onSuspend: (fn) => (suspend = fn),
      setLogsDir: (d) => (logsDir = d),
      stderr,
    };
    return await runUiServices(shell);
  } finally {
    process.off('SIGTERM', term);
    process.off('SIGHUP', hup);
    process.off('SIGTSTP', tstp);
    host.close();
    sessions.close();
    logFeed.close();
    preview.close();
    db.close();
    process.off('exit', restore);
    stdin.unref();
  }
}
