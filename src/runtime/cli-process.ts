/**
 * The agent CLI as a child of the runtime: spawned from an adapter's LaunchCommand, stdout split
 * into lines, stdin kept open for stream-json input, the tail of stderr kept for error messages.
 * The child stays in the runtime's process group, so signalling the group stops both; a watchdog
 * ends that group if the runtime dies (SIGKILL included), so no CLI streams on unsupervised.
 * The CLI's exit is the end of it: the pipes get PIPE_DRAIN_MS to deliver what is left, then are
 * closed, whatever still holds them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { LineDecoder } from '../lib/line-decoder.js';
import { processGroupId } from '../lib/process.js';
import { endSessionStrays, sessionOf } from '../ownership/session-strays.js';
import { guardChild, type Watchdog } from '../ownership/watchdog.js';
import type { LaunchCommand } from '../adapters/runtime-adapter.js';

const MAX_LINE_BYTES = 64 * 1024 * 1024;
const STDERR_KEEP = 8 * 1024;
/**
 * After the CLI exits, how long its output pipes may take to drain. A grandchild that inherited
 * them (an MCP server, a leftover helper) can hold them open for ever; the CLI's exit is the end.
 */
export const PIPE_DRAIN_MS = 2000;

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export class CliProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<CliExit>;
  private stderrTail = '';
  private stdinOpen: boolean;
  private exitInfo: CliExit | null = null;

  constructor(
    cmd: LaunchCommand,
    opts: { cwd: string; env: NodeJS.ProcessEnv; onLine: (line: string) => void; onStderr?: (chunk: string) => void },
  ) {
    // PWD follows the cwd: some CLIs (opencode) take their project directory from $PWD, which a
    // spawn with another cwd would otherwise leave at the caller's directory.
    const env: NodeJS.ProcessEnv = { ...opts.env, PWD: opts.cwd };
    for (const [k, v] of Object.entries(cmd.env)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    this.stdinOpen = cmd.stdin === 'stream-json';
    this.child = spawn(cmd.file, cmd.args, {
      cwd: opts.cwd,
      env,
      stdio: [cmd.stdin === 'closed' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (cmd.stdin === 'text') {
      this.child.stdin?.on('error', () => undefined);
      this.child.stdin?.end(cmd.stdinText ?? '');
    }
    const decoder = new LineDecoder(MAX_LINE_BYTES);
    this.child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of decoder.push(chunk).lines) opts.onLine(line);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-STDERR_KEEP);
      opts.onStderr?.(s);
    });
    this.child.stdin?.on('error', () => {
      this.stdinOpen = false; // EPIPE: the CLI went away; its exit tells the rest
    });
    // Armed now, not on the 'spawn' event: a pid is set synchronously when the spawn succeeds, and
    // a runtime killed before that event would otherwise leave its CLI unguarded. Our own group
    // (runtimes run detached as group leaders): the watchdog ends the whole group, the CLI's own
    // children too. Otherwise just the CLI.
    // Leading a session of our own too (Linux), what the CLI left in it outside the group goes as well.
    let guard: Watchdog | null = null;
    const leader = sessionOf(process.pid) === process.pid;
    if (this.child.pid !== undefined) {
      const group = processGroupId(process.pid) === process.pid ? process.pid : undefined;
      guard = guardChild(this.child.pid, { graceMs: 3000, group, session: leader ? process.pid : undefined });
    }
    this.exited = new Promise<CliExit>((resolve) => {
      let spawnError: Error | null = null;
      this.child.once('error', (e) => {
        spawnError = e;
        // No 'exit' follows a failed spawn.
        if (this.child.pid === undefined) finish(null, null);
      });
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exitInfo) return;
        guard?.dispose();
        this.stdinOpen = false;
        const stderr = spawnError
          ? `${this.stderrTail}\ncannot run ${cmd.file}: ${spawnError.message}`
          : this.stderrTail;
        const info: CliExit = { code, signal, stderr };
        this.exitInfo = info;
        void strays.then(() => resolve(info));
      };
      // What the CLI left running in our session (its helpers in groups of their own) ends with it,
      // and before its exit is told: a runtime that exits next would otherwise leave them on.
      let strays: Promise<number> = Promise.resolve(0);
      // 'close' (stdout drained too, so every line was delivered) normally follows 'exit' at once;
      // when something else holds the pipes it is not waited for beyond PIPE_DRAIN_MS.
      this.child.once('exit', (code, signal) => {
        if (leader) strays = endSessionStrays();
        const t = setTimeout(() => {
          this.child.stdout?.destroy();
          this.child.stderr?.destroy();
          finish(code, signal);
        }, PIPE_DRAIN_MS);
        this.child.once('close', () => {
          clearTimeout(t);
          finish(code, signal);
        });
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitInfo === null;
  }

  get canWrite(): boolean {
    return this.stdinOpen && this.running;
  }

  write(text: string): boolean {
    if (!this.canWrite) return false;
    this.child.stdin!.write(text);
    return true;
  }

  /** No more input: the CLI finishes its queued work and exits. */
  closeInput(): void {
    if (!this.stdinOpen) return;
    this.stdinOpen = false;
    this.child.stdin?.end();
  }

  signal(sig: NodeJS.Signals): void {
    if (this.running) {
      try {
        this.child.kill(sig);
      } catch {
        /* already gone */
      }
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs` if it is still there. */
  async stop(graceMs: number): Promise<CliExit> {
    if (!this.running) return this.exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
