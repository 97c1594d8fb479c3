/**
 * The second phase of `klaude ui` (see ui-supervisor.ts): everything behind the dashboard's
 * actions. It registers the instance, runs the Switcher (in its dashboard flavour), answers the
 * control socket, and owns the hand-over:
 *
 *   dashboard ──open/new/checkout──▶ switching ──spawned──▶ claude ──released──▶ dashboard
 *        └──q / SIGTERM / SIGHUP──▶ closing                    └──SIGTERM/SIGHUP──▶ closing
 *
 * The hand-over is one path: prepare while the dashboard still shows (so errors appear there),
 * host.suspend(), Switcher.start(); when claude exits with nothing pending the Switcher releases
 * and host.resume() paints the dashboard again. `klaude checkout` from inside that claude
 * switches sessions without the dashboard in between (the Switcher's kill-and-resume).
 */
import { randomUUID } from 'node:crypto';
import { resolveClaudeBinary } from '../config/claude-binary.js';
import { loadConfig } from '../config/config.js';
import { controlRequest } from '../control/client.js';
import type { ControlEvent } from '../control/protocol.js';
import { startControlServer, type ControlServer } from '../control/server.js';
import { shortId } from '../core/ids.js';
import { createInstance, endInstance, setInstanceRoot } from '../db/repos/instances.js';
import { createSession, getSession, updateSession } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { logFilePath } from '../config/paths.js';
import { VERSION } from '../lib/version.js';
import type { DashboardActions } from '../ui/deps.js';
import { isLive } from '../ui/state/tree.js';
import { openSupervisorContext } from '../supervisor/context.js';
import type { ForegroundExit, LaunchSpec } from '../supervisor/foreground.js';
import { supervisorHandlers, type HandlerDeps } from '../supervisor/handlers.js';
import * as store from '../supervisor/store.js';
import { exitCodeOf, QUICK_DEATH_MS } from '../supervisor/switcher.js';
import type { UiShell } from './supervisor.js';
import { UiSwitcher } from './switcher.js';
import { osc52, WaitingNotifier } from '../ui/terminal/notify.js';
import { reclaimStdin } from '../ui/terminal/screen.js';
import type { LiveProcesses } from '../db/repos/listing.js';

/** The line printed after the dashboard quits while PTY sessions run. */
function ptyExitNote(pty: [string, LiveProcesses][], stopped: boolean): string {
  const n = pty.length;
  const ids = pty.map(([id]) => shortId(id)).join(', ');
  return stopped
    ? `klaude: stopped ${n} PTY session${n === 1 ? '' : 's'} (${ids}); their conversations stay resumable (klaude talk <id>)`
    : `klaude: ${n} PTY session${n === 1 ? '' : 's'} keep${n === 1 ? 's' : ''} running (${ids}): klaude talk <id> attaches, klaude ui shows them`;
}

/** 'talk': the terminal is attached to a PTY session (the dashboard's talk key). */
type Face = 'dashboard' | 'switching' | 'claude' | 'talk' | 'closing';

// The terminal sends SIGINT/SIGQUIT to the whole foreground group: while claude runs they are its.
// SIGTSTP is handled (suspendToShell), not ignored.
const IGNORED: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT'];

export async function runUiServices(shell: UiShell): Promise<number> {
  const { opts, home, cwd, root, hash, instanceId, host, sessions, ui } = shell;
  const { config } = loadConfig(home);
  shell.setLogsDir(config['logs.dir']);
  const log = createFileLogger(logFilePath(home), 'ui', opts.env);
  // No claude is not fatal here: the dashboard still shows and follows agents; opening one says why.
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
    cwd,
    projectRoot: root,
    projectHash: hash,
    log,
    instanceId,
    claudeBin,
    passthrough: shell.passthrough,
    env: opts.env,
  });
  const { db } = ctx;
  if (recovered.staleInstances.length || recovered.sessionsEnded.length) {
    log.info('marked stale rows', { ...recovered });
    sessions.refresh();
  }
  createInstance(db, { id: instanceId, projectId: hash, pid: process.pid, socketPath: ctx.socketPath, cwd, mode: 'ui', klaudeVersion: VERSION });
  if (config['ui.maxFps'] !== 30) host.setMaxFps(config['ui.maxFps']);
  shell.preview.setFrameMs(1000 / config['ui.maxFps']);

  const switcher = new UiSwitcher(ctx);
  const startedAt = Date.now();
  let rootSessionId: string | null = null;
  let face: Face = 'dashboard';
  let server: ControlServer | null = null;
  let exitCode = 0;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const notice = (text: string, tone: 'info' | 'warn' | 'error' = 'info'): void => ui.dispatch({ type: 'notice', notice: { text, tone } });

  const publish = (e: ControlEvent): void => {
    server?.publish(e);
    sessions.poke();
  };
  const deps: HandlerDeps = { ctx, switcher, rootSessionId: () => rootSessionId, startedAt, publish };
  const afterwards = <T>(p: Promise<T>): Promise<T> => p.finally(() => sessions.refresh());

  /** The session the person is in right now (no bell for it). */
  let talking: string | null = null;
  const out = opts.stdout ?? process.stdout;
  const notifier = new WaitingNotifier({
    source: sessions,
    mode: config['ui.notify'],
    write: (seq) => void out.write(seq),
    setTitle: (t) => host.screen.setTitle(t),
    inFront: () => talking ?? switcher.fg.current?.spec.sessionId ?? null,
  });
  notifier.start();

  const close = (code: number, o: { stopPtySessions?: boolean } = {}): void => {
    if (face === 'closing') return;
    face = 'closing';
    exitCode = code;
    notifier.stop();
    host.close();
    // PTY sessions are their own processes: they outlive the dashboard unless asked to stop.
    const pty = [...sessions.getSnapshot().processes].filter(([, p]) => p.pty !== undefined);
    if (pty.length > 0) shell.stderr.write(`${ptyExitNote(pty, o.stopPtySessions === true)}\n`);
    finish(code);
  };

  // ── hand-over: the one way the terminal goes to claude and comes back ────
  const handOver = async (prepare: () => Promise<LaunchSpec>): Promise<{ spec: LaunchSpec; pid: number }> => {
    if (claudeMissing) throw claudeMissing;
    if (face !== 'dashboard') {
      throw new KlaudeError('E_SWITCH_IN_PROGRESS', face === 'claude' ? 'claude already has the terminal' : face === 'talk' ? 'the terminal is attached to a PTY session' : 'a switch is in progress', {
        hint: 'use `klaude checkout <id>` inside claude to switch sessions',
      });
    }
    face = 'switching';
    let spec: LaunchSpec;
    try {
      spec = await prepare();
    } catch (e) {
      if (face === 'switching') face = 'dashboard';
      throw e;
    }
    if (face !== 'switching') throw new KlaudeError('E_SWITCH_FAILED', 'klaude is shutting down');
    host.suspend();
    try {
      const running = await switcher.start(spec);
      face = 'claude';
      return { spec, pid: running.pid };
    } catch (e) {
      if (face === 'switching') {
        face = 'dashboard';
        host.resume();
      }
      throw e;
    }
  };

  const prepareExisting = (target: string, timeoutMs?: number) => async (): Promise<LaunchSpec> => {
    const t = store.resolveCheckoutTarget(ctx, target, target);
    const claudeSessionId = await store.waitForClaudeId(ctx, t, timeoutMs ?? config['switch.targetTimeoutSeconds'] * 1000);
    store.assertNotForegroundElsewhere(ctx, t.id);
    await store.stopHeadlessRuntime(ctx, t.id);
    // Same as checkout: the agent's own directory, and a non-Claude agent's own CLI.
    return store.launchSpecFor(ctx, t, claudeSessionId);
  };

  /** Sessions `n` created in this dashboard, until claude leaves them. */
  const fresh = new Set<string>();
  const prepareNew = async (): Promise<LaunchSpec> => {
    const s = createSession(db, { projectId: hash, type: 'tui', runtime: 'claude', status: 'idle', instanceId });
    fresh.add(s.id);
    rootSessionId = s.id;
    setInstanceRoot(db, instanceId, s.id);
    publish({ type: 'session.created', sessionId: s.id, parentId: null, runtime: 'claude', status: 'idle' });
    return { sessionId: s.id, claudeSessionId: randomUUID(), mode: 'new' };
  };

  switcher.on('foreground', (s, pid) => publish({ type: 'instance.foreground', sessionId: s.sessionId, pid }));
  switcher.onRelease((ev: ForegroundExit) => {
    if (face === 'closing') return;
    face = 'dashboard';
    // A new claude (n) left without a prompt: nothing to keep in the tree (as `klaude` on exit).
    if (fresh.delete(ev.spec.sessionId)) store.archiveIfEmpty(ctx, ev.spec.sessionId);
    publish({ type: 'instance.foreground', sessionId: null, pid: null });
    sessions.refresh();
    ui.dispatch({ type: 'select', id: ev.spec.sessionId });
    const code = exitCodeOf(ev);
    if (code !== 0 && ev.ranMs < QUICK_DEATH_MS) notice(`claude exited with code ${code} right after starting (details: ${log.file ?? 'the klaude log'})`, 'error');
    else notice(`back from ${shortId(ev.spec.sessionId)} (claude exited${code ? ` with code ${code}` : ''})`);
    host.resume();
  });
  switcher.on('finished', (code) => close(code));

  /**
   * Ctrl-Z: stop like any terminal program, and come back on `fg`. With the dashboard up it goes
   * through the same suspend/resume path as the hand-over; while claude runs, claude stops itself
   * by signalling the process group and klaude just stops with it.
   */
  const suspendToShell = (): void => {
    if (face === 'dashboard') {
      host.suspend();
      process.once('SIGCONT', () => {
        if (face === 'dashboard') host.resume();
      });
    }
    process.kill(process.pid, 'SIGSTOP');
  };

  const actions: DashboardActions = {
    open: async (id) => {
      await handOver(prepareExisting(id));
    },
    newSession: async () => {
      await handOver(prepareNew);
    },
    // Agents start, take messages and stop through the control socket: the same path as `klaude start`.
    start: (req) =>
      afterwards(controlRequest(ctx.socketPath, 'start', { type: req.type, prompt: req.prompt, ...(req.parentId ? { parentId: req.parentId } : {}), cwd }, { timeoutMs: 60_000 })),
    message: (sessionId, prompt) => afterwards(controlRequest(ctx.socketPath, 'message', { sessionId, prompt }, { timeoutMs: 60_000 })),
    interrupt: (sessionIds) => afterwards(controlRequest(ctx.socketPath, 'interrupt', { sessionIds }, { timeoutMs: 30_000 })),
    archive: async (ids, archived) => {
      // Archiving only hides: it never signals a process, and refuses live sessions outright.
      const rows = ids.map((id) => getSession(db, id)).filter((s): s is NonNullable<typeof s> => s !== undefined);
      const live = archived ? rows.find((s) => isLive(s)) : undefined;
      if (live) throw new KlaudeError('E_SESSION_BUSY', `${shortId(live.id)} is ${live.status}: only finished sessions can be archived`);
      const now = Date.now();
      for (const s of rows) updateSession(db, s.id, { archivedAt: archived ? now : null });
      for (const s of rows) publish({ type: 'session.changed', sessionId: s.id, status: s.status });
      sessions.refresh();
    },
    agentTypes: async () => (await import('./agent-types.js')).agentChoices(cwd, opts.env),
    talk: async (sessionId) => {
      if (face !== 'dashboard') {
        throw new KlaudeError('E_SWITCH_IN_PROGRESS', face === 'claude' ? 'claude has the terminal' : 'the terminal is busy (a switch or another talk)');
      }
      face = 'talk';
      talking = sessionId;
      try {
        const { talkFromDashboard } = await import('./talk.js');
        return await talkFromDashboard({
          home,
          sessionId,
          cwd,
          env: opts.env,
          inv: ctx.inv,
          stdin: opts.stdin ?? process.stdin,
          stdout: out,
          // The dashboard lets go of the terminal, then this process reads it again, for the PTY.
          suspend: () => {
            host.suspend();
            reclaimStdin(opts.stdin ?? process.stdin);
          },
          resume: () => {
            if (face === 'talk') host.resume();
          },
        });
      } finally {
        talking = null;
        if (face === 'talk') face = 'dashboard';
        sessions.refresh();
      }
    },
    quit: (o) => {
      if (o?.stopPtySessions) {
        for (const [, p] of sessions.getSnapshot().processes) {
          if (p.pty === undefined) continue;
          try {
            process.kill(p.pty, 'SIGTERM');
          } catch (err) {
            log.warn('stopping a PTY host failed', { pid: p.pty, err });
          }
        }
      }
      close(0, o);
    },
    redraw: () => host.redraw(),
    copy: (text) => out.write(osc52(text)),
    suspend: () => suspendToShell(),
  };

  // ── exits: every path restores the terminal ─────────────────────────────
  const crash = (err: unknown): void => {
    log.error('dashboard crashed', { err });
    switcher.fg.current?.child.kill('SIGTERM');
    host.screen.emergencyRestore();
    shell.stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
    try {
      endInstance(db, instanceId, { status: 'exited', exitCode: 70 });
    } catch {
      /* best effort */
    }
    process.exit(70);
  };
  const ignore = (): void => {};
  const onSignal = (code: number) => (): void => {
    if (face === 'claude' || face === 'switching') void switcher.shutdown(code);
    else close(code);
  };
  const term = onSignal(143);
  const hup = onSignal(129);
  for (const s of IGNORED) process.on(s, ignore);
  process.on('SIGTERM', term);
  process.on('SIGHUP', hup);
  shell.onSuspend(suspendToShell);
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  host.onCrash(crash);

  try {
    const base = supervisorHandlers(deps);
    server = await startControlServer({
      socketPath: ctx.socketPath,
      handlers: {
        ...base,
        status: (p, c) => ({ ...(base.status!(p, c) as Awaited<ReturnType<NonNullable<typeof base.status>>>), mode: 'ui' }),
        // From the dashboard (no claude in the foreground), a checkout opens the target; inside claude it switches.
        checkout: async (payload, c) => {
          if (face === 'talk') throw new KlaudeError('E_SWITCH_IN_PROGRESS', 'the dashboard is attached to a PTY session', { hint: 'detach (Ctrl-]) first' });
          if (face !== 'dashboard') return base.checkout!(payload, c);
          if (!payload.target) {
            throw new KlaudeError('E_SWITCH_TARGET_MISSING', 'the dashboard is showing: name the session to open', { hint: '`klaude checkout <id>`' });
          }
          const r = await handOver(prepareExisting(payload.target, payload.timeoutMs));
          return { sessionId: r.spec.sessionId, claudeSessionId: r.spec.claudeSessionId, pid: r.pid };
        },
      },
      log: (level, msg, data) => log[level](msg, data),
    });
    shell.attach(actions);
    const early = shell.stopRequested();
    if (early !== null) close(early);
    return await finished;
  } finally {
    for (const s of IGNORED) process.off(s, ignore);
    process.off('SIGTERM', term);
    process.off('SIGHUP', hup);
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
    host.close();
    await server?.close().catch((err: unknown) => log.warn('closing control socket failed', { err }));
    try {
      endInstance(db, instanceId, { status: 'exited', exitCode });
    } catch (err) {
      log.error('ending instance failed', { err });
    }
    db.close();
  }
}
