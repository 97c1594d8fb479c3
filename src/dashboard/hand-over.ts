/**
 * Who has the terminal while `klaude ui` runs, and the one way it goes to claude and comes back:
 *
 *   dashboard ──open/new/checkout──▶ switching ──spawned──▶ claude ──released──▶ dashboard
 *        └──q / SIGTERM / SIGHUP──▶ closing                    └──SIGTERM/SIGHUP──▶ closing
 *
 * Prepare while the dashboard still shows (so errors appear there), host.suspend(),
 * Switcher.start(); when claude exits with nothing pending the Switcher (onIdleExit: 'release')
 * emits 'released' and host.resume() paints the dashboard again. `klaude checkout` from inside
 * that claude switches sessions without the dashboard in between (the Switcher's kill-and-resume).
 */
import { randomUuid } from '../lib/random.js';
import type { ControlEvent } from '../control/protocol.js';
import { shortId } from '../core/ids.js';
import { setInstanceRoot } from '../db/repos/instances.js';
import { createSession } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { ForegroundExit, LaunchSpec } from '../supervisor/foreground.js';
import * as records from '../supervisor/launch-records.js';
import { QUICK_DEATH_MS, Switcher } from '../supervisor/switcher.js';
import { exitCodeOf } from '../supervisor/foreground.js';
import type { UiShell } from './shell.js';

/** 'talk': the terminal is attached to a PTY session (the dashboard's talk key). */
export type Face = 'dashboard' | 'switching' | 'claude' | 'talk' | 'closing';

export interface HandOverDeps {
  ctx: SupervisorContext;
  shell: UiShell;
  /** Why claude can't be launched (no binary found), or null. */
  claudeMissing: unknown;
  publish(e: ControlEvent): void;
}

export class HandOver {
  face: Face = 'dashboard';
  /** The root session the dashboard's `n` created last (the control socket's status names it). */
  rootSessionId: string | null = null;
  readonly switcher: Switcher;

  constructor(private readonly d: HandOverDeps) {
    this.switcher = new Switcher(d.ctx, { onIdleExit: 'release' });
    this.switcher.on('foreground', (s, pid) => d.publish({ type: 'instance.foreground', sessionId: s.sessionId, pid }));
    this.switcher.on('released', (ev) => this.back(ev));
    // Hooks that never fired: said on claude's terminal now, and again in the dashboard on return.
    this.switcher.on('hookTimeout', (e) => {
      process.stderr.write(`\r\nklaude: warning: ${e.message} [${e.code}]\r\nklaude: hint: ${e.hint}\r\n`);
      this.hookWarning = `no SessionStart hook came from that claude [${e.code}] — ${e.hint}`;
    });
  }

  /** An E_HOOK_TIMEOUT warning not yet shown in the dashboard. */
  private hookWarning: string | null = null;

  /** The refusal when the terminal is not the dashboard's to give. */
  busy(): KlaudeError {
    const what =
      this.face === 'claude'
        ? 'claude already has the terminal'
        : this.face === 'talk'
          ? 'the terminal is attached to a PTY session'
          : 'a switch is in progress';
    return new KlaudeError('E_SWITCH_IN_PROGRESS', what, {
      hint: 'use `klaude checkout <id>` inside claude to switch sessions',
    });
  }

  /** Hand the terminal to claude on what `prepare` decides; resolves once claude runs. */
  async run(prepare: () => Promise<LaunchSpec>): Promise<{ spec: LaunchSpec; pid: number }> {
    if (this.d.claudeMissing) throw this.d.claudeMissing;
    if (this.face !== 'dashboard') throw this.busy();
    this.face = 'switching';
    let spec: LaunchSpec;
    try {
      spec = await prepare();
    } catch (e) {
      if (this.face === 'switching') this.face = 'dashboard';
      throw e;
    }
    if (this.face !== 'switching') throw new KlaudeError('E_SWITCH_FAILED', 'klaude is shutting down');
    this.d.shell.host.suspend();
    try {
      const running = await this.switcher.start(spec);
      this.face = 'claude';
      return { spec, pid: running.pid };
    } catch (e) {
      if (this.face === 'switching') {
        this.face = 'dashboard';
        this.d.shell.host.resume();
      }
      throw e;
    }
  }

  /** An existing session, the way checkout opens it: its own directory, a non-Claude agent's own CLI. */
  existing(target: string, timeoutMs?: number): () => Promise<LaunchSpec> {
    const { ctx } = this.d;
    return async () => {
      const t = records.resolveCheckoutTarget(ctx, target, target);
      const nativeId = await records.waitForClaudeId(
        ctx,
        t,
        timeoutMs ?? ctx.config['switch.targetTimeoutSeconds'] * 1000,
      );
      // The dashboard has asked before opening a running agent: its run may be stopped. The claim
      // taken here is released once claude is launched (Switcher.launch).
      await records.prepareTarget(ctx, t, { force: true });
      return records.launchSpecFor(ctx, t, nativeId);
    };
  }

  /** Sessions `n` created in this dashboard, until claude leaves them. */
  private readonly created = new Set<string>();

  /** A new root session with a fresh claude. */
  readonly fresh = async (): Promise<LaunchSpec> => {
    const { ctx, shell } = this.d;
    const s = createSession(ctx.db, {
      projectId: shell.hash,
      type: 'tui',
      runtime: 'claude',
      status: 'idle',
      instanceId: shell.instanceId,
    });
    this.created.add(s.id);
    this.rootSessionId = s.id;
    setInstanceRoot(ctx.db, shell.instanceId, s.id);
    this.d.publish({ type: 'session.created', sessionId: s.id, parentId: null, runtime: 'claude', status: 'idle' });
    return { sessionId: s.id, claudeSessionId: randomUuid(), mode: 'new' };
  };

  /** Claude exited with nothing pending: the dashboard again, with the session it left selected. */
  private back(ev: ForegroundExit): void {
    if (this.face === 'closing') return;
    const { shell, ctx } = this.d;
    this.face = 'dashboard';
    // A new claude (n) left without a prompt: nothing to keep in the tree (as `klaude` on exit).
    if (this.created.delete(ev.spec.sessionId)) records.archiveIfEmpty(ctx, ev.spec.sessionId);
    this.d.publish({ type: 'instance.foreground', sessionId: null, pid: null });
    shell.sessions.refresh();
    shell.ui.dispatch({ type: 'select', id: ev.spec.sessionId });
    const code = exitCodeOf(ev);
    const notice =
      code !== 0 && ev.ranMs < QUICK_DEATH_MS
        ? {
            text: `claude exited with code ${code} right after starting (details: ${ctx.log.file ?? 'the klaude log'})`,
            tone: 'error' as const,
          }
        : {
            text: `back from ${shortId(ev.spec.sessionId)} (claude exited${code ? ` with code ${code}` : ''})`,
            tone: 'info' as const,
          };
    shell.ui.dispatch({
      type: 'notice',
      notice: this.hookWarning ? { text: this.hookWarning, tone: 'error' as const } : notice,
    });
    this.hookWarning = null;
    // Claude's last frame and its "claude --resume" line (a way back without klaude) would wait under
    // the dashboard and greet the person on quitting it: the main screen is cleared first.
    if (process.stdout.isTTY) process.stdout.write(`${this.switcher.exitHintErase()}\x1b[H\x1b[2J`);
    shell.host.resume();
  }
}
