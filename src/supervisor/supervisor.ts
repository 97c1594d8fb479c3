/**
 * `klaude [-- <claude args>]`: one supervisor per invocation. It registers an instance,
 * opens the control socket, and keeps an interactive claude in the foreground until
 * claude exits with no switch pending; then it cleans up and exits with claude's code.
 */
import { newId } from '../db/ids.js';
import { randomUuid } from '../lib/random.js';
import { once } from 'node:events';
import { realpathSync } from 'node:fs';
import { resolveClaudeBinary } from '../config/claude-binary.js';
import { loadConfig } from '../config/config.js';
import { ensurePrivateDir, klaudeHome, logFilePath, projectHash, projectRoot } from '../config/paths.js';
import { startControlServer, type ControlServer } from '../control/server.js';
import { createInstance, endInstance, setInstanceRoot } from '../db/repos/instances.js';
import { createSession, type SessionRow } from '../db/repos/sessions.js';
import { createFileLogger } from '../lib/logger.js';
import { restoreTerminal } from '../lib/terminal.js';
import { sleep } from '../lib/process.js';
import { shortId } from '../core/ids.js';
import { VERSION } from '../lib/version.js';
import { watchApprovalRequests } from './approval-notice.js';
import { watchAgentFinishes } from './finish-notice.js';
import { parseClaudePassthrough } from './foreground-args.js';
import { openSupervisorContext, type SupervisorContext } from './context.js';
import type { LaunchSpec } from './foreground.js';
import { supervisorHandlers } from './handlers.js';
import { pickResumeSession } from './resume.js';
import { finishSupervisor, resumable } from './launch-records.js';
import { Switcher } from './switcher.js';

export interface SupervisorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeArgs: string[];
  /** A klaude or Claude id to resume as this supervisor's root, or 'last'. */
  resume?: string;
}

// The terminal sends SIGINT/SIGQUIT to the whole foreground group: they are claude's. SIGTSTP
// is not ignored: claude suspends itself (ctrl+z) by signalling its process group, and klaude
// must stop with it, or the shell never gets the terminal back; `fg` continues both.
const IGNORED: NodeJS.Signals[] = ['SIGINT', 'SIGQUIT'];

export async function runSupervisor(opts: SupervisorOptions): Promise<number> {
  const ctx = openContext(opts);
  const { db, log } = ctx;
  // Pick the root before registering, so a bad --resume leaves no rows behind.
  const resumeFrom = opts.resume ? pickResumeSession(ctx, opts.resume) : undefined;
  const { rootSession, spec } = registerInstance(ctx, resumeFrom);

  const switcher = new Switcher(ctx);
  const startedAt = Date.now();
  let server: ControlServer | null = null;
  const publish: Parameters<typeof supervisorHandlers>[0]['publish'] = (e) => server?.publish(e);
  let exitCode = 1;
  let hookWarning: string | null = null;
  const cleanups: (() => void)[] = [];
  try {
    server = await startControlServer({
      socketPath: ctx.socketPath,
      handlers: supervisorHandlers({ ctx, switcher, rootSessionId: () => rootSession.id, startedAt, publish }),
      log: (level, msg, data) => log[level](msg, data),
    });
    // Sessions this terminal has shown: their endings are no news to the person (no finish notice).
    const fronted = new Set<string>([rootSession.id]);
    switcher.on('foreground', (s, pid) => {
      fronted.add(s.sessionId);
      publish({ type: 'instance.foreground', sessionId: s.sessionId, pid });
    });
    // Said when it happens and again below claude's last screen: claude ≥ 2.1.332 draws in the
    // alternate screen, where its next redraw can paint over the first (docs/claude-versions.md).
    switcher.on('hookTimeout', (e) => {
      hookWarning = `klaude: warning: ${e.message} [${e.code}]\nklaude: hint: ${e.hint}\n`;
      process.stderr.write(`\r\n${hookWarning.replace(/\n/g, '\r\n')}`);
    });
    cleanups.push(guardSignals(ctx, switcher));
    cleanups.push(...watchNotices(ctx, switcher, fronted));
    const finished = once(switcher, 'finished') as Promise<[number]>;
    await switcher.start(spec);
    [exitCode] = await finished;
    return exitCode;
  } finally {
    for (const c of cleanups) c();
    await server?.close().catch((err: unknown) => log.warn('closing control socket failed', { err }));
    let hint: string | null = null;
    try {
      endInstance(db, ctx.instanceId, { status: 'exited', exitCode });
      hint = finishSupervisor(ctx, rootSession.id, !resumeFrom, switcher.lastSpec);
      // Instead of claude's own "claude --resume <uuid>" lines, which would resume without klaude.
      if (hint) hint = `${switcher.exitHintErase()}${hint}`;
    } catch (err) {
      log.error('ending instance failed', { err });
    }
    db.close();
    restoreTerminal();
    if (hint) process.stdout.write(`${hint}\n`);
    if (hookWarning) process.stderr.write(hookWarning);
  }
}

/** Config, the claude binary, the project, the file logger and the DB: what the supervisor knows. */
function openContext(opts: SupervisorOptions): SupervisorContext {
  // Bad arguments are reported before anything is created or looked up.
  const passthrough = parseClaudePassthrough(opts.claudeArgs);
  const home = ensurePrivateDir(klaudeHome(opts.env));
  const { config } = loadConfig(home);
  const claudeBin = resolveClaudeBinary(config, opts.env);
  const cwd = realpathSync(opts.cwd);
  const root = projectRoot(cwd);
  const hash = projectHash(root);
  const log = createFileLogger(logFilePath(home), 'supervisor', opts.env);
  const instanceId = newId();
  const { ctx, recovered } = openSupervisorContext({
    home,
    config,
    cwd,
    projectRoot: root,
    projectHash: hash,
    log,
    instanceId,
    claudeBin,
    passthrough,
    env: opts.env,
  });
  if (recovered.staleInstances.length) log.info('marked stale rows', { ...recovered });
  return ctx;
}

/** The instance record and its root session (the resumed one, or a new one), and how to launch it. */
function registerInstance(
  ctx: SupervisorContext,
  resumeFrom: ReturnType<typeof pickResumeSession> | undefined,
): { rootSession: SessionRow; spec: LaunchSpec } {
  const { db, instanceId, projectHash: hash } = ctx;
  createInstance(db, {
    id: instanceId,
    projectId: hash,
    pid: process.pid,
    socketPath: ctx.socketPath,
    cwd: ctx.cwd,
    mode: 'cli',
    klaudeVersion: VERSION,
  });
  let rootSession: SessionRow;
  let spec: LaunchSpec;
  if (resumeFrom) {
    rootSession = resumeFrom.session;
    spec = {
      sessionId: rootSession.id,
      claudeSessionId: resumeFrom.claudeSessionId,
      mode: resumable(ctx, rootSession.id, resumeFrom.claudeSessionId) ? 'resume' : 'new',
    };
  } else {
    rootSession = createSession(db, { projectId: hash, type: 'tui', runtime: 'claude', status: 'idle', instanceId });
    spec = { sessionId: rootSession.id, claudeSessionId: randomUuid(), mode: 'new' };
  }
  setInstanceRoot(db, instanceId, rootSession.id);
  return { rootSession, spec };
}

/**
 * SIGTERM/SIGHUP stop claude (its exit ends the supervisor); a crash stops claude, restores the
 * terminal and exits 70. Returns the undo.
 */
function guardSignals(ctx: SupervisorContext, switcher: Switcher): () => void {
  const { db, log, instanceId } = ctx;
  const ignore = (): void => {};
  for (const s of IGNORED) process.on(s, ignore);
  const onTerm = (code: number) => () => void switcher.shutdown(code);
  const term = onTerm(143);
  const hup = onTerm(129);
  process.on('SIGTERM', term);
  process.on('SIGHUP', hup);
  let crashed = false;
  const crash = (err: unknown): void => {
    log.error('supervisor crashed', { err });
    if (crashed) return;
    crashed = true;
    // Claude is stopped and its exit waited for (bounded by the grace), so its own resume line can
    // be taken off the screen and the klaude way back said last.
    switcher.fg.removeAllListeners('exit');
    const grace = ctx.config['switch.graceSeconds'] * 1000;
    const stopped = Promise.race([switcher.fg.stop(grace), sleep(grace + 1000).then(() => null)]);
    // stop() never rejects; the write below ends the process whatever happens.
    void stopped.then((ev) => {
      const spec = switcher.lastSpec;
      let back = '';
      try {
        endInstance(db, instanceId, { status: 'exited', exitCode: 70 });
        if (
          spec &&
          (!spec.runtime || spec.runtime === 'claude') &&
          resumable(ctx, spec.sessionId, spec.claudeSessionId)
        )
          back = `${ev ? switcher.hintErase(ev) : ''}klaude: resume this session with klaude: klaude --resume ${shortId(spec.sessionId)}\n`;
      } catch (e) {
        log.error('recording the crash failed', { err: e });
      }
      restoreTerminal();
      process.stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
      process.stdout.write(back);
      process.exit(70);
    });
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  return () => {
    for (const s of IGNORED) process.off(s, ignore);
    process.off('SIGTERM', term);
    process.off('SIGHUP', hup);
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
  };
}

/** Agents' permission requests and endings ring this terminal (claude's screen is left alone). */
function watchNotices(ctx: SupervisorContext, switcher: Switcher, fronted: Set<string>): (() => void)[] {
  const { db, log, config } = ctx;
  const ring = (seq: string): void => void (process.stdout.isTTY ? process.stdout.write(seq) : undefined);
  return [
    watchApprovalRequests({
      db,
      projectId: ctx.projectHash,
      mode: config['ui.notify'],
      write: ring,
      onError: (err) => log.warn('watching permission requests failed', { err }),
    }),
    watchAgentFinishes({
      db,
      projectId: ctx.projectHash,
      mode: config['ui.notify'],
      inFront: (id) => fronted.has(id) || switcher.switchingTo === id,
      write: ring,
      onError: (err) => log.warn('watching agents for their endings failed', { err }),
    }),
  ];
}
