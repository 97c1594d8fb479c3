/**
 * The link's one ssh connection to its zone (docs/zones.md "Reconnecting"): `ssh <zone> klaude
 * __zone-serve` with the channel on its stdio, a `hello` to open it, and when it ends — ssh's
 * keep-alives gave up on a dead network, the laptop slept, the zone rebooted — another try after
 * a backoff (0.5 s doubling to 30 s, a quarter either way at random), or at once when a klaude
 * command looks (`kick`). Tries are made only while the link has something to do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { VERSION } from '../lib/version.js';
import { Channel, offline, type WireEvent } from './channel.js';
import { prepareSsh, serveCommand, sshArgv, sshWhy, type SshPlace } from './ssh.js';
import { ZONE_PROTOCOL, type ServeHello } from './wire.js';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;
/** A connection that has not said hello by then is given up (a hung master, a network that black-holes). */
const HELLO_TIMEOUT_MS = 45_000;

export interface ConnHooks {
  /** Something is waiting for the zone (live agents, held messages): keep trying. */
  wanted(): boolean;
  /** The channel is open (hello answered). */
  opened(ch: Channel, hello: ServeHello): Promise<void>;
  event(e: WireEvent): void;
}

export type ConnState = 'offline' | 'connecting' | 'connected';

export class LinkConnection {
  state: ConnState = 'offline';
  lastError: string | null = null;
  nextTryAt: number | null = null;
  hello: ServeHello | null = null;
  private channel: Channel | null = null;
  private child: ChildProcess | null = null;
  private connecting: Promise<Channel> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly place: SshPlace,
    private readonly hooks: ConnHooks,
    private readonly log: Logger,
  ) {}

  /** The open channel, connecting first when there is none (one attempt; rejects when it fails). */
  open(): Promise<Channel> {
    if (this.channel?.isOpen) return Promise.resolve(this.channel);
    this.connecting ??= this.attempt().finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** The channel if it is open now, else null (no attempt). */
  get current(): Channel | null {
    return this.channel?.isOpen ? this.channel : null;
  }

  /** A klaude command looked: try now instead of at the end of the backoff. */
  kick(): void {
    if (this.closed || this.state !== 'offline' || !this.hooks.wanted()) return;
    this.cancelTimer();
    this.open().catch(() => undefined); // a failure schedules the next try itself
  }

  private async attempt(): Promise<Channel> {
    if (this.closed) throw offline('the link is closing');
    this.cancelTimer();
    this.state = 'connecting';
    prepareSsh(this.place);
    const child = spawn('ssh', sshArgv(this.place, serveCommand(this.place.spec), { batch: true }), {
      env: this.place.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (d: string) => (stderr = (stderr + d).slice(-4096)));
    const spawnFailed = new Promise<never>((_, reject) =>
      child.once('error', (e) => reject(new KlaudeError('E_ZONE_SETUP', `cannot run ssh: ${e.message}`))),
    );
    const ch = new Channel(child.stdout!, child.stdin!, {
      event: (e) => this.hooks.event(e),
      closed: (why) => this.onClosed(child, why, () => stderr),
    });
    child.once('exit', () => ch.close(`ssh exited`));
    try {
      const hello = await Promise.race([
        ch.request<ServeHello>(
          'hello',
          { from: os.hostname(), protocol: ZONE_PROTOCOL, version: VERSION },
          HELLO_TIMEOUT_MS,
        ),
        spawnFailed,
      ]);
      this.channel = ch;
      this.hello = hello;
      this.state = 'connected';
      this.failures = 0;
      this.lastError = null;
      this.nextTryAt = null;
      this.log.info('zone connected', { host: hello.host, version: hello.version });
      await this.hooks.opened(ch, hello);
      return ch;
    } catch (e) {
      const why = e instanceof KlaudeError && e.code !== 'E_ZONE_OFFLINE' ? e.message : sshWhy(stderr);
      child.kill('SIGTERM');
      ch.close(why);
      throw e instanceof KlaudeError && e.code !== 'E_ZONE_OFFLINE' && e.code !== 'E_TIMEOUT'
        ? e
        : offline(`cannot reach zone ${this.place.spec.ssh}: ${why}`);
    }
  }

  private onClosed(child: ChildProcess, why: string, stderr: () => string): void {
    if (this.child === child) this.child = null;
    if (this.channel && !this.channel.isOpen) this.channel = null;
    this.state = 'offline';
    this.hello = null;
    const said = sshWhy(stderr());
    this.lastError = said !== 'ssh failed' ? said : why;
    if (!child.killed) child.kill('SIGTERM');
    this.log.info('zone connection ended', { why: this.lastError });
    this.schedule();
  }

  /** The next try, after the backoff, when something still waits for the zone. */
  private schedule(): void {
    if (this.closed || this.timer || !this.hooks.wanted()) return;
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.failures++);
    const delay = Math.round(base * (0.75 + Math.random() / 2));
    this.nextTryAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.open().catch(() => undefined); // its failure scheduled the next try
    }, delay);
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextTryAt = null;
  }

  close(): void {
    this.closed = true;
    this.cancelTimer();
    this.channel?.close('the link is closing');
    this.child?.stdin?.end();
  }
}
