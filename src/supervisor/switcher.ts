/**
 * The foreground state machine: which klaude session's Claude owns the terminal, and
 * checkout = stop it and resume another.
 *
 *   idle ──checkout──▶ switching: resolve target → wait for its Claude id → stop a
 *   headless runtime on it → SIGTERM foreground (SIGKILL after grace) → on exit launch
 *   `claude --resume` → answer the caller on spawn → idle.
 *
 * A relaunch that dies within QUICK_DEATH_MS is retried once; if it dies again the
 * previous session is restored and the diagnostics are printed. Claude exiting with no
 * switch pending ends the supervisor with claude's exit code.
 */
import { EventEmitter } from 'node:events';
import { shortId } from '../core/ids.js';
import { KlaudeError } from '../lib/errors.js';
import { restoreTerminal } from '../lib/terminal.js';
import { hookSettings, mergeSettings } from '../hooks/settings.js';
import type { SupervisorContext } from './context.js';
import { HookWatch } from './hook-watch.js';
import { InterruptWatch } from '../claude/transcript-follower.js';
import {
  describeExit,
  exitCodeOf,
  ForegroundClaude,
  type ForegroundExit,
  type LaunchSpec,
  type Running,
} from './foreground.js';

import { claudeCommand, isClaude, otherCommand } from './launch-plan.js';
import type { CheckoutPayload, CheckoutResult } from '../control/protocol.js';
import { prependPath } from '../claude/shim.js';
import * as records from './launch-records.js';
import { checkoutPurpose, releaseConversation } from '../ownership/conversation-claim.js';
import { claudePrintedHint, eraseClaudeHint } from './claude-exit.js';

export const QUICK_DEATH_MS = 3000;

/**
 * The klaude line for the person (also shown by the relaunched claude), and who we came from (for
 * the relaunched Claude; none when going back after a failed switch).
 */
type SwitchNotice = { line: string; from?: string };

interface PendingSwitch {
  spec: LaunchSpec;
  notice: SwitchNotice;
  fallback: LaunchSpec | null;
  resolve: (r: Running) => void;
  reject: (e: unknown) => void;
}

interface LastLaunch {
  spec: LaunchSpec;
  attempt: number;
  fallback: LaunchSpec | null;
  processRowId: number | null;
  notice?: SwitchNotice;
}

export interface SwitcherOptions {
  /**
   * What claude exiting with no switch pending means: 'finish' (default, `klaude`) ends the
   * supervisor ('finished'); 'release' (`klaude ui`) hands the terminal back to the dashboard
   * ('released'), and the supervisor lives on until `shutdown`.
   */
  onIdleExit?: 'finish' | 'release';
}

export class Switcher extends EventEmitter<{
  finished: [number];
  foreground: [LaunchSpec, number];
  released: [ForegroundExit];
  /** A launched claude's SessionStart never arrived (told once; stderr when nobody listens). */
  hookTimeout: [KlaudeError];
}> {
  readonly fg: ForegroundClaude;
  private pending: PendingSwitch | null = null;
  private last: LastLaunch | null = null;
  private switching = false;
  /** The session a checkout in progress brings to the foreground. */
  private target: string | null = null;
  private stopping = false;
  /** Session → the foreground it was checked out from (where `klaude checkout` with no id goes back). */
  private readonly cameFrom = new Map<string, string>();
  private launches = 0;
  /** Launches between "decided" and "spawned": shutdown() has no child to stop yet. */
  private inFlight = 0;
  private readonly settingsJson: string;
  /** Warns once when a launched claude's SessionStart hook never arrives (hooks disabled). */
  private readonly hookWatch: HookWatch;
  /** Ends the foreground claude's turn when the person interrupts it (claude runs no hook then). */
  private readonly interrupts: InterruptWatch;

  constructor(
    private readonly ctx: SupervisorContext,
    private readonly opts: SwitcherOptions = {},
  ) {
    super();
    this.fg = new ForegroundClaude(ctx.log.child('foreground'));
    this.fg.on('exit', (ev) => this.onExit(ev));
    this.settingsJson = JSON.stringify(mergeSettings(ctx.passthrough.userSettings, hookSettings(ctx.inv)));
    this.interrupts = new InterruptWatch({ db: ctx.db, dbPath: ctx.db.path, log: ctx.log.child('interrupts') });
    this.hookWatch = new HookWatch(ctx, (e) => {
      this.emit('hookTimeout', e);
      if (this.listenerCount('hookTimeout') === 0)
        process.stderr.write(`\r\nklaude: warning: ${e.message} [${e.code}]\r\nklaude: hint: ${e.hint}\r\n`);
    });
  }

  get isSwitching(): boolean {
    return this.switching || this.pending !== null;
  }

  /** The session a checkout in progress brings to the foreground (its headless run is stopped on the way). */
  get switchingTo(): string | null {
    return this.target;
  }

  get foreground(): { spec: LaunchSpec; pid: number } | null {
    const r = this.fg.current;
    return r ? { spec: r.spec, pid: r.pid } : null;
  }

  /** First launch of the supervisor's root session. */
  async start(spec: LaunchSpec): Promise<Running> {
    return this.launch(spec, null);
  }

  /** What had the terminal last (klaude's exit hint names it). */
  get lastSpec(): LaunchSpec | null {
    return this.last?.spec ?? null;
  }

  private async launch(
    spec: LaunchSpec,
    fallback: LaunchSpec | null,
    attempt = 1,
    notice?: SwitchNotice,
  ): Promise<Running> {
    const { ctx } = this;
    if (this.stopping) throw new KlaudeError('E_SWITCH_FAILED', 'klaude is shutting down');
    const first = this.launches++ === 0;
    const env: NodeJS.ProcessEnv = {
      ...ctx.env,
      KLAUDE_HOME: ctx.home,
      KLAUDE_PROJECT_HASH: ctx.projectHash,
      KLAUDE_PROJECT_PATH: ctx.projectRoot,
      KLAUDE_INSTANCE_ID: ctx.instanceId,
      KLAUDE_SESSION_ID: spec.sessionId,
      KLAUDE_SOCKET: ctx.socketPath,
      PATH: prependPath(ctx.shimDir, ctx.env.PATH),
    };
    // `<session>:<label>` and `<session>:<line>`: only this session's own hooks act on them (agents
    // started from this claude's Bash tool inherit the variables, with another KLAUDE_SESSION_ID).
    // The line comes back as the SessionStart hook's systemMessage: claude ≥ 2.1.332 clears the
    // screen as it starts, wiping the line printed before the launch.
    delete env.KLAUDE_SWITCHED_FROM;
    delete env.KLAUDE_SWITCH_NOTICE;
    if (notice?.from) env.KLAUDE_SWITCHED_FROM = `${spec.sessionId}:${notice.from}`;
    if (notice) env.KLAUDE_SWITCH_NOTICE = `${spec.sessionId}:${notice.line}`;
    // In flight from here: a shutdown meanwhile leaves stopping the new child to us.
    this.inFlight++;
    let running: Running;
    try {
      const plan = isClaude(spec) ? claudeCommand(ctx, spec, this.settingsJson, first) : await otherCommand(ctx, spec);
      if (this.stopping) throw new KlaudeError('E_SWITCH_FAILED', 'klaude is shutting down');
      records.beforeLaunch(ctx, spec);
      running = await this.fg.launch(spec, {
        ...plan,
        env,
        cwd: spec.cwd ?? ctx.cwd,
        graceMs: ctx.config['switch.graceSeconds'] * 1000,
      });
    } catch (e) {
      releaseConversation(ctx.db, spec.sessionId, checkoutPurpose(ctx.instanceId));
      throw e;
    } finally {
      this.inFlight--;
    }
    // Bookkeeping never makes us abandon a live child: a failure here (DB busy, disk full) is
    // logged and the child stays ours (its exit is still handled; the watchdog still guards it).
    let rowId: number | null = null;
    try {
      rowId = records.recordForeground(ctx, spec, running.pid);
    } catch (err) {
      ctx.log.error('recording the foreground launch failed; claude keeps running', { err, pid: running.pid });
    }
    releaseConversation(ctx.db, spec.sessionId, checkoutPurpose(ctx.instanceId));
    this.last = { spec, attempt, fallback, processRowId: rowId, ...(notice ? { notice } : {}) };
    // (A zone's claude runs its hooks over there.)
    if (!spec.zone) this.hookWatch.watch(spec, () => this.fg.current === running);
    if (isClaude(spec)) this.interrupts.track(spec.sessionId);
    this.emit('foreground', spec, running.pid);
    // shutdown() came while this child was being spawned: it had nothing to stop then.
    // Its exit reaches onExit → 'finished'; stop() itself never rejects (it waits on the exit).
    if (this.stopping) void this.fg.stop(ctx.config['switch.graceSeconds'] * 1000);
    return running;
  }

  async checkout(req: CheckoutPayload): Promise<CheckoutResult & { unchanged?: boolean }> {
    if (this.isSwitching || this.stopping) {
      throw new KlaudeError('E_SWITCH_IN_PROGRESS', 'a checkout is already in progress', {
        hint: 'wait for it to finish, then try again',
      });
    }
    const cur = this.fg.current;
    if (!cur)
      throw new KlaudeError('E_SWITCH_IN_PROGRESS', 'claude is between launches', { hint: 'try again in a moment' });
    this.switching = true;
    let claimed: string | null = null;
    try {
      const { ctx } = this;
      const from = req.fromSessionId ?? cur.spec.sessionId;
      const target = records.resolveCheckoutTarget(ctx, req.target, from, this.cameFrom.get(from));
      this.target = target.id;
      if (target.id === cur.spec.sessionId) {
        return { sessionId: target.id, claudeSessionId: cur.spec.claudeSessionId, pid: cur.pid, unchanged: true };
      }
      const timeoutMs = req.timeoutMs ?? ctx.config['switch.targetTimeoutSeconds'] * 1000;
      const claudeSessionId = await records.waitForClaudeId(ctx, target, timeoutMs);
      // The claim makes this checkout the conversation's one writer-to-be: a `klaude message`
      // during the old claude's grace period gets E_SESSION_BUSY instead of resuming it too.
      const { note } = await records.prepareTarget(ctx, target, { force: req.force === true, remote: req.remote });
      claimed = target.id;
      // Those waits may have outlived the foreground claude (or the supervisor): then there is
      // nothing to stop, and waiting for its exit would leave this switch pending forever.
      if (this.stopping || this.fg.current !== cur) {
        throw new KlaudeError(
          'E_SWITCH_FAILED',
          this.stopping ? 'klaude is shutting down' : 'the foreground claude exited during the checkout',
          { hint: 'run the checkout again' },
        );
      }
      const spec = records.launchSpecFor(ctx, target, claudeSessionId);
      const notice = records.switchNotice(ctx, cur.spec.sessionId, target, note);
      const running = await new Promise<Running>((resolve, reject) => {
        this.pending = { spec, notice, fallback: cur.spec, resolve, reject };
        // The old child's exit (onExit) launches the target and settles `pending`; stop() never rejects.
        void this.fg.stop(ctx.config['switch.graceSeconds'] * 1000);
      });
      this.cameFrom.set(spec.sessionId, cur.spec.sessionId);
      return { sessionId: spec.sessionId, claudeSessionId, pid: running.pid, ...(note ? { note } : {}) };
    } finally {
      if (claimed) releaseConversation(this.ctx.db, claimed, checkoutPurpose(this.ctx.instanceId));
      this.switching = false;
      this.target = null;
    }
  }

  /** Stop the foreground claude and end the supervisor (SIGTERM/SIGHUP, `stop` action). */
  async shutdown(code: number): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.shutdownCode = code;
    this.hookWatch.stop();
    if (this.pending) {
      this.pending.reject(new KlaudeError('E_SWITCH_FAILED', 'klaude is shutting down'));
      this.pending = null;
    }
    if (!this.fg.current) {
      // A launch in flight stops its child as soon as it is spawned (see launch).
      if (this.inFlight === 0) this.emit('finished', code);
      return;
    }
    await this.fg.stop(this.ctx.config['switch.graceSeconds'] * 1000);
  }

  private shutdownCode = 0;
  /** The last exit whose claude may have printed its own resume hint (claude-exit.ts). */
  private lastExit: ForegroundExit | null = null;

  /** The bytes that take claude's own resume hint off the screen, when its last exit printed one ('' if not). */
  exitHintErase(): string {
    const ev = this.lastExit;
    this.lastExit = null;
    return ev ? this.hintErase(ev) : '';
  }

  /** The same for an exit the Switcher did not handle (a crashing supervisor waits for claude itself). */
  hintErase(ev: ForegroundExit): string {
    const saved = records.resumable(this.ctx, ev.spec.sessionId, ev.spec.claudeSessionId);
    return claudePrintedHint(ev, saved) ? eraseClaudeHint(ev) : '';
  }

  private onExit(ev: ForegroundExit): void {
    const { ctx } = this;
    // A child killed hard leaves raw mode on and the cursor hidden.
    restoreTerminal();
    this.lastExit = ev;
    this.interrupts.untrack(ev.spec.sessionId);
    records.afterExit(ctx, ev, this.last?.processRowId ?? null, this.pending?.spec.sessionId === ev.spec.sessionId);
    if (this.stopping) {
      this.emit('finished', this.shutdownCode || exitCodeOf(ev));
      return;
    }
    if (this.pending) {
      const p = this.pending;
      this.pending = null;
      // The stopped claude's last frame would stay above the new one: clear the screen, say what
      // happened in one line. Its "claude --resume" line goes first: a clear keeps the screen in the
      // scrollback (tmux, VTE), where it would sit right above ours and bypass klaude.
      this.lastExit = null;
      process.stdout.write(`${this.hintErase(ev)}\x1b[H\x1b[2J${p.notice.line}\r\n`);
      this.launch(p.spec, p.fallback, 1, p.notice).then(p.resolve, (err) => {
        p.reject(err);
        this.restore(
          p.spec,
          p.fallback,
          ev,
          `could not start ${p.spec.runtime ?? 'claude'} for ${shortId(p.spec.sessionId)}: ${(err as Error).message}`,
        );
      });
      return;
    }
    const last = this.last;
    const quick = ev.ranMs < QUICK_DEATH_MS && (ev.code !== 0 || ev.signal !== null);
    if (last && last.fallback && quick) {
      if (last.attempt < 2) {
        ctx.log.warn('relaunch died at once; retrying', { ...ev });
        this.launch(last.spec, last.fallback, last.attempt + 1, last.notice).catch((err) =>
          this.restore(last.spec, last.fallback, ev, (err as Error).message),
        );
        return;
      }
      this.restore(last.spec, last.fallback, ev, `claude exited with ${describeExit(ev)} right after starting, twice`);
      return;
    }
    this.idleExit(ev);
  }

  /** Claude is gone and nothing else is coming: end the supervisor, or hand back to the dashboard. */
  private idleExit(ev: ForegroundExit): void {
    if (this.opts.onIdleExit === 'release') this.emit('released', ev);
    else this.emit('finished', exitCodeOf(ev));
  }

  /**
   * Go back to the session we switched away from, telling the person why. `target` is the session
   * the switch was for (`ev` may be the exit of the session switched away from).
   */
  private restore(target: LaunchSpec, fallback: LaunchSpec | null, ev: ForegroundExit, why: string): void {
    const { ctx } = this;
    if (this.stopping) {
      // A relaunch failed because (or while) klaude is shutting down: nothing to go back to.
      this.emit('finished', this.shutdownCode || exitCodeOf(ev));
      return;
    }
    ctx.log.error('switch failed; restoring previous session', { why, failed: target, fallback });
    const failed = `klaude: could not switch to ${shortId(target.sessionId)} (${target.runtime ?? 'claude'} ${target.mode === 'resume' ? '--resume' : '--session-id'} ${target.claudeSessionId}): ${why} [E_SWITCH_FAILED]`;
    process.stderr.write(
      `\r\n${failed}\r\n` +
        (fallback
          ? `klaude: returning to ${shortId(fallback.sessionId)}; details in ${ctx.log.file ?? 'the klaude log'}\r\n`
          : ''),
    );
    if (!fallback) {
      this.idleExit(ev);
      return;
    }
    const spec: LaunchSpec = {
      ...fallback,
      mode: records.resumable(ctx, fallback.sessionId, fallback.claudeSessionId) ? 'resume' : 'new',
    };
    this.launch(spec, null, 1, { line: failed }).catch((err) => {
      ctx.log.error('restore failed', { err });
      this.idleExit(ev);
    });
  }
}
