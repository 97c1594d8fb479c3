/**
 * The second phase of `klaude ui` (see ui-supervisor.ts): everything behind the dashboard's actions.
 * It registers the instance, answers the control socket, and wires three parts together:
 * hand-over.ts (who has the terminal: dashboard, claude, a PTY talk), actions.ts (what the keys
 * do) and exits.ts (signals and crashes, every path restoring the terminal).
 */
import { resolveClaudeBinary } from '../config/claude-binary.js';
import { loadConfig } from '../config/config.js';
import { logFilePath } from '../config/paths.js';
import type { ControlEvent } from '../control/protocol.js';
import { startControlServer, type ControlHandlers, type ControlServer } from '../control/server.js';
import { shortId } from '../core/ids.js';
import { createInstance, endInstance } from '../db/repos/instances.js';
import type { LiveProcesses } from '../db/repos/listing.js';
import { KlaudeError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { holdPersonKey } from '../ownership/person-key.js';
import { VERSION } from '../lib/version.js';
import { openSupervisorContext, type SupervisorContext } from '../supervisor/context.js';
import { supervisorHandlers } from '../supervisor/handlers.js';
import { WaitingNotifier } from '../ui/notify.js';
import { dashboardActions } from './actions.js';
import { guardExits } from './exits.js';
import { HandOver } from './hand-over.js';
import type { UiShell } from './shell.js';

export async function runUiServices(shell: UiShell): Promise<number> {
  const { ctx, claudeMissing } = openContext(shell);
  registerInstance(ctx, shell);
  const key = holdKey(ctx, shell);

  let server: ControlServer | null = null;
  const publish = (e: ControlEvent): void => {
    server?.publish(e);
    shell.sessions.poke();
  };
  const handOver = new HandOver({ ctx, shell, claudeMissing, publish });
  const { switcher } = handOver;

  let talking: string | null = null;
  const notifier = startNotifier(ctx, shell, () => talking ?? switcher.fg.current?.spec.sessionId ?? null);
  const ending = new Ending(shell, handOver, notifier);
  const { close } = ending;
  switcher.on('finished', (code) => close(code));

  const exits = guardExits({ ctx, shell, handOver, close });
  const actions = dashboardActions({
    ctx,
    shell,
    handOver,
    publish,
    close,
    setTalking: (id) => (talking = id),
    suspendToShell: exits.suspendToShell,
  });

  try {
    server = await startControlServer({
      socketPath: ctx.socketPath,
      handlers: uiHandlers(ctx, handOver, publish),
      log: (level, msg, data) => ctx.log[level](msg, data),
    });
    shell.attach(actions);
    const early = shell.stopRequested();
    if (early !== null) close(early);
    return await ending.finished;
  } finally {
    key.release();
    exits.dispose();
    shell.host.close();
    await server?.close().catch((err: unknown) => ctx.log.warn('closing control socket failed', { err }));
    try {
      endInstance(ctx.db, shell.instanceId, { status: 'exited', exitCode: ending.code });
    } catch (err) {
      ctx.log.error('ending instance failed', { err });
    }
    ctx.db.close();
  }
}

function registerInstance(ctx: SupervisorContext, shell: UiShell): void {
  createInstance(ctx.db, {
    id: shell.instanceId,
    projectId: shell.hash,
    pid: process.pid,
    socketPath: ctx.socketPath,
    cwd: shell.cwd,
    mode: 'ui',
    klaudeVersion: VERSION,
  });
}

/**
 * The dashboard's key (ownership/person-key.ts), sent with its answers: where a runtime cannot ask
 * the kernel who sent one, it is what counts them as the person's. Without it the dashboard still
 * answers where the kernel can be asked (Linux).
 */
function holdKey(ctx: SupervisorContext, shell: UiShell): { release: () => void } {
  try {
    return holdPersonKey(ctx.home, ctx.env, shell.instanceId);
  } catch (err) {
    ctx.log.warn('no dashboard key: answers count only where the runtime can ask who sent them', { err });
    return { release: () => undefined };
  }
}

/** The terminal's bell and title for sessions waiting on the person, except the one in front. */
function startNotifier(ctx: SupervisorContext, shell: UiShell, inFront: () => string | null): WaitingNotifier {
  const out = shell.opts.stdout ?? process.stdout;
  const notifier = new WaitingNotifier({
    source: shell.sessions,
    mode: ctx.config['ui.notify'],
    write: (seq) => void out.write(seq), // a write to the terminal; backpressure doesn't matter for a bell
    setTitle: (t) => shell.host.screen.setTitle(t),
    inFront,
  });
  notifier.start();
  return notifier;
}

/** How the dashboard ends: the first close wins, and `finished` resolves with its code. */
class Ending {
  code = 0;
  readonly finished: Promise<number>;
  private finish!: (code: number) => void;

  constructor(
    private readonly shell: UiShell,
    private readonly handOver: HandOver,
    private readonly notifier: WaitingNotifier,
  ) {
    this.finished = new Promise<number>((resolve) => (this.finish = resolve));
  }

  readonly close = (code: number, o: { stopPtySessions?: boolean } = {}): void => {
    const { shell, handOver } = this;
    if (handOver.face === 'closing') return;
    handOver.face = 'closing';
    this.code = code;
    this.notifier.stop();
    shell.host.close();
    // PTY sessions are their own processes: they outlive the dashboard unless asked to stop.
    const pty = [...shell.sessions.getSnapshot().processes].filter(([, p]) => p.pty !== undefined);
    if (pty.length > 0) shell.stderr.write(`${ptyExitNote(pty, o.stopPtySessions === true)}\n`);
    this.finish(code);
  };
}

/** The supervisor's control handlers, with the dashboard's status and checkout. */
function uiHandlers(ctx: SupervisorContext, handOver: HandOver, publish: (e: ControlEvent) => void): ControlHandlers {
  const base = supervisorHandlers({
    ctx,
    switcher: handOver.switcher,
    rootSessionId: () => handOver.rootSessionId,
    startedAt: Date.now(),
    publish,
  });
  return {
    ...base,
    status: (p, c) => ({
      ...(base.status!(p, c) as Awaited<ReturnType<NonNullable<typeof base.status>>>),
      mode: 'ui',
    }),
    // From the dashboard (no claude in the foreground), a checkout opens the target; inside claude it switches.
    checkout: async (payload, c) => {
      if (handOver.face === 'talk')
        throw new KlaudeError('E_SWITCH_IN_PROGRESS', 'the dashboard is attached to a PTY session', {
          hint: 'detach (Ctrl-]) first',
        });
      if (handOver.face !== 'dashboard') return base.checkout!(payload, c);
      if (!payload.target)
        throw new KlaudeError('E_SWITCH_TARGET_MISSING', 'the dashboard is showing: name the session to open', {
          hint: '`klaude checkout <id>`',
        });
      const r = await handOver.run(handOver.existing(payload.target, payload.timeoutMs));
      return { sessionId: r.spec.sessionId, claudeSessionId: r.spec.claudeSessionId, pid: r.pid };
    },
  };
}

/** Config, the file logger, the claude binary (its absence is not fatal: opening a session says why), the DB. */
function openContext(shell: UiShell): { ctx: SupervisorContext; claudeMissing: unknown } {
  const { opts, home } = shell;
  const { config } = loadConfig(home);
  shell.setLogsDir(config['logs.dir']);
  const log = createFileLogger(logFilePath(home), 'ui', opts.env);
  let claudeBin = '';
  let claudeMissing: unknown = null;
  try {
    claudeBin = resolveClaudeBinary(config, opts.env);
  } catch (e) {
    claudeMissing = e;
  }
  const { ctx, recovered } = openSupervisorContext({
    home,
    config,
    cwd: shell.cwd,
    projectRoot: shell.root,
    projectHash: shell.hash,
    log,
    instanceId: shell.instanceId,
    claudeBin,
    passthrough: shell.passthrough,
    env: opts.env,
  });
  if (recovered.staleInstances.length || recovered.sessionsEnded.length) {
    log.info('marked stale rows', { ...recovered });
    shell.sessions.refresh();
  }
  if (config['ui.maxFps'] !== 30) shell.host.setMaxFps(config['ui.maxFps']);
  shell.preview.setFrameMs(1000 / config['ui.maxFps']);
  return { ctx, claudeMissing };
}

/** The line printed after the dashboard quits while PTY sessions run. */
function ptyExitNote(pty: [string, LiveProcesses][], stopped: boolean): string {
  const n = pty.length;
  const ids = pty.map(([id]) => shortId(id)).join(', ');
  return stopped
    ? `klaude: stopped ${n} PTY session${n === 1 ? '' : 's'} (${ids}); their conversations stay resumable (klaude talk <id>)`
    : `klaude: ${n} PTY session${n === 1 ? '' : 's'} keep${n === 1 ? 's' : ''} running (${ids}): klaude talk <id> attaches, klaude ui shows them`;
}
