/**
 * The zone channel: NDJSON over one pair of byte streams, the stdio of `ssh <zone> klaude
 * __zone-serve` (docs/zones.md "The channel"). Both ends use this class: the link sends requests
 * `{id, op, …}` and takes replies `{id, ok, result | error}` and events `{ev, …}`; the serve end
 * answers requests and sends events. Nothing else goes over the wire: no port of ours, no framing
 * beyond lines.
 *
 * A line is at most MAX_LINE bytes (a log chunk is cut well below it). Writing respects the
 * stream's buffer: a peer that stops reading (a dead link whose TCP has not noticed yet) makes
 * `backlog` grow, and its owner decides when that means the peer is gone.
 */
import { fromSerialized, KlaudeError, type SerializedError } from '../lib/errors.js';
import { LineDecoder } from '../lib/line-decoder.js';

export const MAX_LINE = 16 * 1024 * 1024;

export interface WireRequest {
  id: number;
  op: string;
  [k: string]: unknown;
}
export type WireReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: SerializedError };
export interface WireEvent {
  ev: string;
  [k: string]: unknown;
}

export interface ChannelHandlers {
  /** A request from the other end (serve side): its result, or a throw (sent back as the error). */
  request?(req: WireRequest): unknown;
  event?(e: WireEvent): void;
  /** The input ended or broke: the channel is closed (pending requests fail first). */
  closed?(why: string): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | null;
  op: string;
}

export class Channel {
  private readonly decoder = new LineDecoder(MAX_LINE);
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private open = true;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream & { writableLength?: number },
    private readonly h: ChannelHandlers,
  ) {
    input.on('data', (c: Buffer) => this.onData(c));
    input.on('end', () => this.close('the channel ended'));
    input.on('error', (e: Error) => this.close(`the channel broke: ${e.message}`));
    output.on('error', (e: Error) => this.close(`the channel broke: ${e.message}`));
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Bytes written but not yet taken by the other side's pipe. */
  get backlog(): number {
    return this.output.writableLength ?? 0;
  }

  send(msg: WireEvent | WireReply | WireRequest): void {
    if (!this.open) return;
    this.output.write(`${JSON.stringify(msg)}\n`);
  }

  /** A request; rejects on its error reply, on `timeoutMs` (0: none) or when the channel closes. */
  request<R>(op: string, args: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<R> {
    if (!this.open) return Promise.reject(offline(`the channel is closed`));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(
                new KlaudeError('E_TIMEOUT', `the zone did not answer ${op} within ${Math.round(timeoutMs / 1000)} s`),
              );
            }, timeoutMs)
          : null;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, op });
      this.send({ ...args, id, op });
    });
  }

  close(why: string): void {
    if (!this.open) return;
    this.open = false;
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(offline(why));
    }
    this.h.closed?.(why);
  }

  private onData(chunk: Buffer): void {
    const { lines, overflow } = this.decoder.push(chunk);
    for (const line of lines) this.onLine(line);
    if (overflow) this.close(`a line over ${MAX_LINE} bytes came over the channel`);
  }

  private onLine(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // not ours (a remote shell's greeting): ignored
    }
    if (typeof msg.ev === 'string') return this.h.event?.(msg as WireEvent);
    if (typeof msg.id !== 'number') return;
    if (typeof msg.op === 'string') return void this.answer(msg as WireRequest);
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (p.timer) clearTimeout(p.timer);
    const reply = msg as WireReply;
    if (reply.ok) p.resolve(reply.result);
    else p.reject(fromSerialized(reply.error));
  }

  private async answer(req: WireRequest): Promise<void> {
    try {
      if (!this.h.request) throw new KlaudeError('E_BAD_REQUEST', `${req.op} is not served here`);
      const result = await this.h.request(req);
      this.send({ id: req.id, ok: true, result: result ?? null });
    } catch (e) {
      const err =
        e instanceof KlaudeError
          ? e.toJSON()
          : { code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e) };
      this.send({ id: req.id, ok: false, error: err });
    }
  }
}

/** The link is down (or went down during the request): the caller may hold what it sent. */
export function offline(why: string): KlaudeError {
  return new KlaudeError('E_ZONE_OFFLINE', why, { hint: 'klaude zone list shows the link; it reconnects by itself' });
}

export const isOffline = (e: unknown): boolean =>
  e instanceof KlaudeError && (e.code === 'E_ZONE_OFFLINE' || e.code === 'E_TIMEOUT');
