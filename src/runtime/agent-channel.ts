/**
 * The server end of a sandboxed agent's channel (docs/sandbox.md, "The agent's klaude"): the only
 * way out of its sandbox to klaude. Its runtime watches the agent's io directory; each request a
 * `klaude` inside the sandbox leaves there (sandbox/channel-client.ts) is one command of the
 * agent's (sandbox/agent-commands.ts), run as a klaude of its own outside the sandbox with
 * `KLAUDE_AGENT_SCOPE` set, so it acts on the agent's own sessions only (commands/agents/agent-scope.ts);
 * its output and exit code go back through the request's FIFO. Any other command is refused here,
 * before anything runs. The agent owns the io directory, so every file there is opened without
 * following links and checked for its type: nothing it plants makes klaude read or write elsewhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  unlinkSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import { Socket } from 'node:net';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { shellQuote, type KlaudeInvocation } from '../claude/shim.js';
import { AGENT_INFO_ARGS, isAgentCommand } from '../sandbox/agent-commands.js';
import {
  MAX_REQUEST_BYTES,
  PASSED_ENV,
  REQUEST_ID,
  type ChannelFrame,
  type ChannelRequest,
} from '../sandbox/channel-frames.js';
import { CHANNEL_ENV, type ChannelPaths } from '../sandbox/channel-paths.js';
import type { Logger } from '../lib/logger.js';

/** Requests run at once; more wait for none: they are refused (an agent flooding its channel gets errors). */
const MAX_RUNNING = 8;
const { O_RDONLY, O_WRONLY, O_NONBLOCK, O_NOFOLLOW } = constants;

export interface ChannelOptions {
  paths: ChannelPaths;
  inv: KlaudeInvocation;
  /** The environment of the klaude run for each request (the agent's, with the scope set here). */
  env: NodeJS.ProcessEnv;
  /** config `agents.approvals: parent`: approve and deny are the agent's too (for its sub-agents). */
  parentAnswers: boolean;
  /** Where a request may run: inside these trees (else in `cwd`). */
  trees: string[];
  cwd: string;
  log: Logger;
}

/** The `klaude` on a sandboxed agent's PATH: the channel's client, pointed at this agent's io directory. */
export function channelShim(paths: ChannelPaths, inv: KlaudeInvocation): string {
  const client = path.join(path.dirname(inv.cli), 'agent-client.cjs');
  return `#!/bin/sh\n${CHANNEL_ENV}=${shellQuote(paths.io)} exec ${shellQuote(inv.node)} ${shellQuote(client)} "$@"\n`;
}

export class AgentChannel {
  private watcher: FSWatcher | null = null;
  private readonly running = new Map<string, ChildProcess>();
  private closed = false;

  constructor(private readonly o: ChannelOptions) {}

  /** Commands running for the agent now. */
  get busy(): number {
    return this.running.size;
  }

  /** Make the directories and the shim, and take requests. */
  open(): void {
    const { paths } = this.o;
    rmSync(paths.dir, { recursive: true, force: true }); // a previous run's leftovers (and anything planted)
    for (const dir of [paths.dir, paths.bin, paths.io]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
    }
    writeFileSync(path.join(paths.bin, 'klaude'), channelShim(paths, this.o.inv), { mode: 0o700, flag: 'wx' });
    this.watcher = watch(paths.io, (_event, name) => {
      if (typeof name === 'string') this.take(name);
    });
    this.watcher.on('error', (err) => this.o.log.warn('agent channel watch failed', { err }));
    this.rescan();
  }

  /** Stop taking requests, end the ones running (their clients are gone with the agent's commands). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    for (const child of this.running.values()) child.kill('SIGTERM');
    rmSync(this.o.paths.dir, { recursive: true, force: true });
  }

  /** Requests already there (none in practice: the agent's CLI starts after open()). */
  private rescan(): void {
    for (const name of readdirSync(this.o.paths.io)) this.take(name);
  }

  private take(name: string): void {
    const m = /^(.+)\.req$/.exec(name);
    if (this.closed || !m || !REQUEST_ID.test(m[1]!) || this.running.has(m[1]!)) return;
    const id = m[1]!;
    const at = (ext: string): string => path.join(this.o.paths.io, `${id}.${ext}`);
    const req = readRequest(at('req'));
    if (!req) return;
    const out = openFifo(at('out'), O_WRONLY);
    if (out === null) return; // its client is gone (or it is no FIFO of a client's)
    const alive = openFifo(at('in'), O_RDONLY);
    const sink = new Socket({ fd: out, readable: false, writable: true });
    sink.on('error', () => this.running.get(id)?.kill('SIGTERM')); // EPIPE: the client went away
    const send = (f: ChannelFrame): void => void sink.write(`${JSON.stringify(f)}\n`);
    send({ t: 'hello' });
    const refusal = this.refusal(req);
    if (refusal) {
      send({ t: 'e', d: refusal });
      send({ t: 'exit', code: 2 });
      sink.end();
      if (alive !== null) closeSync(alive);
      return;
    }
    const child = this.spawn(req);
    this.running.set(id, child);
    if (alive !== null) {
      const watchdog = new Socket({ fd: alive, readable: true, writable: false });
      watchdog.on('error', () => undefined);
      watchdog.on('close', () => child.kill('SIGTERM')); // the client ended (Ctrl-C, the Bash timeout)
      watchdog.resume();
      child.once('close', () => watchdog.destroy());
    }
    this.pipe(child, send);
    child.once('close', (code, signal) => {
      this.running.delete(id);
      send({ t: 'exit', code: code ?? 128 + signalNumber(signal) });
      sink.end();
      for (const ext of ['out', 'in']) unlinkQuietly(at(ext));
    });
  }

  /** Why the channel does not run this command (one klaude error line), or null. */
  private refusal(req: ChannelRequest): string | null {
    const word = req.argv[0];
    if (isAgentCommand(word, this.o.parentAnswers) || (AGENT_INFO_ARGS as readonly string[]).includes(word ?? '')) {
      if (this.running.size < MAX_RUNNING) return null;
      return `klaude: ${MAX_RUNNING} commands of this agent are running already [E_AGENT_CHANNEL] — hint: wait for one to end\n`;
    }
    return `klaude: \`klaude ${word ?? ''}\` is not an agent's command [E_AGENT_CHANNEL] — hint: an agent's klaude has start, message, wait, watch, logs, sessions, status, checkout, interrupt, diff, agents; the person's commands (approve, deny, budget, merge, …) are theirs to run\n`;
  }

  private spawn(req: ChannelRequest): ChildProcess {
    const env: NodeJS.ProcessEnv = { ...this.o.env };
    for (const k of PASSED_ENV) {
      delete env[k];
      if (typeof req.env[k] === 'string') env[k] = req.env[k];
    }
    const cwd = this.o.trees.some((t) => req.cwd === t || req.cwd.startsWith(`${t}/`)) ? req.cwd : this.o.cwd;
    const child = spawn(this.o.inv.node, [this.o.inv.cli, ...req.argv], {
      cwd,
      env,
      stdio: [req.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.on('error', (err) => this.o.log.warn('agent channel command failed to start', { err }));
    if (req.stdin !== undefined) {
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(req.stdin);
    }
    return child;
  }

  private pipe(child: ChildProcess, send: (f: ChannelFrame) => void): void {
    for (const [stream, t] of [
      [child.stdout!, 'o'],
      [child.stderr!, 'e'],
    ] as const) {
      const dec = new StringDecoder('utf8');
      stream.on('data', (b: Buffer) => send({ t, d: dec.write(b) }));
      stream.on('end', () => {
        const rest = dec.end();
        if (rest) send({ t, d: rest });
      });
    }
  }
}

/** The request file, read without following links, then removed; null when it is not one. */
function readRequest(file: string): ChannelRequest | null {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_REQUEST_BYTES) return null;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return parseRequest(buf.subarray(0, got).toString('utf8'));
  } finally {
    closeSync(fd);
    unlinkQuietly(file);
  }
}

function parseRequest(text: string): ChannelRequest | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  const r = v as Partial<ChannelRequest> | null;
  if (!r || !Array.isArray(r.argv) || !r.argv.every((a) => typeof a === 'string')) return null;
  if (typeof r.cwd !== 'string' || !path.isAbsolute(r.cwd)) return null;
  const env = r.env && typeof r.env === 'object' ? (r.env as Record<string, unknown>) : {};
  const clean: Record<string, string> = {};
  for (const k of PASSED_ENV) if (typeof env[k] === 'string') clean[k] = env[k];
  return {
    argv: r.argv,
    cwd: path.normalize(r.cwd),
    env: clean,
    ...(typeof r.stdin === 'string' ? { stdin: r.stdin } : {}),
  };
}

/** A FIFO of the client's, opened without blocking or following links; null when it is none (or no reader). */
function openFifo(file: string, mode: number): number | null {
  let fd: number;
  try {
    fd = openSync(file, mode | O_NONBLOCK | O_NOFOLLOW);
  } catch {
    return null; // ENXIO: nobody reads it any more; ELOOP: a link
  }
  if (fstatSync(fd).isFIFO()) return fd;
  closeSync(fd);
  return null;
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* the client removed it */
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (osConstants.signals[signal] ?? 1) : 1;
}
