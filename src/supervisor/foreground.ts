/**
 * Face A: the interactive `claude` as a foreground child with the terminal inherited
 * (no PTY between them). One child at a time; exit is tracked by the 'exit' event, not
 * by `.killed`, so a SIGKILL fallback fires only if the process is really still there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { constants as osConstants } from 'node:os';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { guardChild } from '../ownership/watchdog.js';

export interface LaunchSpec {
  sessionId: string;
  /** The native session to open: a Claude session id, or the runtime's own id (Codex thread…). */
  claudeSessionId: string;
  mode: 'new' | 'resume';
  /** The agent's runtime when it isn't claude: its own interactive resume is launched instead. */
  runtime?: string;
  /** Where the session was started (resume is scoped to it); default: the supervisor's cwd. */
  cwd?: string;
  /** A zone's agent opened where it is (`klaude checkout --remote`): the child is `ssh -t` into its CLI there. */
  zone?: string;
}

export interface ForegroundExit {
  spec: LaunchSpec;
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  ranMs: number;
}

export interface Running {
  spec: LaunchSpec;
  child: ChildProcess;
  pid: number;
  startedAt: number;
  exited: Promise<ForegroundExit>;
}

export interface SpawnPlan {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** How long the owner-death watchdog waits after SIGTERM before SIGKILL. */
  graceMs?: number;
}

export class ForegroundClaude extends EventEmitter<{ exit: [ForegroundExit] }> {
  private running: Running | null = null;

  constructor(private readonly log: Logger) {
    super();
  }

  get current(): Running | null {
    return this.running;
  }

  /** Resolves once the child is spawned (has a pid); rejects if it can't be spawned at all. */
  launch(spec: LaunchSpec, plan: SpawnPlan): Promise<Running> {
    if (this.running) throw new KlaudeError('E_INTERNAL', 'a foreground claude is already running');
    return new Promise((resolve, reject) => {
      const startedAt = Date.now();
      const child = spawn(plan.file, plan.args, { stdio: 'inherit', env: plan.env, cwd: plan.cwd });
      let settled = false;
      let resolveExit!: (e: ForegroundExit) => void;
      const exited = new Promise<ForegroundExit>((r) => (resolveExit = r));
      child.once('spawn', () => {
        settled = true;
        // If klaude dies by any signal (SIGKILL included) claude is ended, so it restores the
        // terminal itself instead of fighting the shell for it.
        const guard = guardChild(child.pid!, { graceMs: plan.graceMs });
        child.once('exit', () => guard.dispose());
        const running: Running = { spec, child, pid: child.pid!, startedAt, exited };
        this.running = running;
        this.log.info('claude spawned', { pid: child.pid, ...spec });
        resolve(running);
      });
      child.once('error', (err) => {
        this.log.error('claude spawn error', { err, file: plan.file });
        if (!settled) {
          settled = true;
          reject(new KlaudeError('E_CLAUDE_NOT_FOUND', `could not start ${plan.file}: ${err.message}`));
        }
      });
      child.once('exit', (code, signal) => {
        if (!settled) return;
        const ev: ForegroundExit = { spec, pid: child.pid!, code, signal, ranMs: Date.now() - startedAt };
        this.log.info('claude exited', { ...ev });
        if (this.running?.child === child) this.running = null;
        resolveExit(ev);
        this.emit('exit', ev);
      });
    });
  }

  /** SIGTERM, then SIGKILL after `graceMs` if it hasn't exited. Resolves with the exit. */
  async stop(graceMs: number): Promise<ForegroundExit | null> {
    const r = this.running;
    if (!r) return null;
    r.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.log.warn('claude ignored SIGTERM; sending SIGKILL', { pid: r.pid, graceMs });
        r.child.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    const ev = await Promise.race([r.exited, killed.then(() => r.exited)]);
    clearTimeout(timer);
    return ev;
  }
}

/** The shell's exit code for a foreground exit: its code, else 128 + the signal's number. */
export function exitCodeOf(ev: Pick<ForegroundExit, 'code' | 'signal'>): number {
  if (ev.code !== null) return ev.code;
  const n = ev.signal ? (osConstants.signals as Record<string, number>)[ev.signal] : undefined;
  return 128 + (n ?? 1);
}

export function describeExit(ev: Pick<ForegroundExit, 'code' | 'signal'>): string {
  return ev.signal ? `signal ${ev.signal}` : `code ${ev.code}`;
}
