/**
 * A zone's link on the person's machine (`klaude __zone-link <zone>`, link-main.ts starts it): the
 * one process that talks to the zone. It holds the ssh connection (link-conn.ts), keeps the mirror
 * of the zone's agents (mirror.ts) by following each one's log from its cursor, holds messages
 * until the zone has taken them (outbox.ts), and answers klaude's own processes on its socket
 * (link-server.ts). Answers to permission requests are judged here, where the person is: the
 * zone takes them only from this link (ownership/answerer.ts over there). docs/zones.md.
 */
import type { Config, ZoneSpec } from '../config/schema.js';
import type { Db } from '../db/client.js';
import { approvalsOf, answerApproval } from '../db/repos/approvals.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { zoneMirrorIds } from '../db/repos/zone-mirrors.js';
import { appendSessionEvent } from '../logs/writer.js';
import { isTerminal } from '../core/status.js';
import { shortId } from '../core/ids.js';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { identifyAnswerer } from '../ownership/answerer.js';
import type { Peer } from '../lib/socket-peer.js';
import type { LinkRequest, LinkStatus, ZoneStartRequest } from '../zone-client/link-protocol.js';
import type { AnswerResult } from '../control/protocol.js';
import { isOffline, offline, type Channel, type WireEvent } from './channel.js';
import { LinkConnection } from './link-conn.js';
import { Mirror } from './mirror.js';
import { Outbox, type Held } from './outbox.js';
import { pushBase } from './git-link.js';
import type { MirrorRow, ServeEvent } from './wire.js';

export interface LinkDeps {
  home: string;
  zone: string;
  spec: ZoneSpec;
  env: NodeJS.ProcessEnv;
  log: Logger;
  db: Db;
  config: Config;
}

/** How long a `klaude message` waits for the zone before it is told its message is held. */
const DELIVER_WAIT_MS = 30_000;
/** The same, when the link is down as the message comes. */
const OFFLINE_WAIT_MS = 5000;

export class ZoneLink {
  readonly conn: LinkConnection;
  readonly mirror: Mirror;
  readonly outbox: Outbox;
  private readonly following = new Set<string>();
  /** Agents whose start is on its way to the zone: not followed until it answered. */
  private readonly starting = new Set<string>();
  private readonly waiters = new Map<string, (r: { ok: true; v: unknown } | { ok: false; e: unknown }) => void>();
  /** Messages a caller was told are held: said in the zone's log if they are refused later. */
  private readonly heldKeys = new Set<string>();
  private flushing: Promise<void> | null = null;
  rttMs: number | null = null;

  constructor(private readonly d: LinkDeps) {
    this.mirror = new Mirror(d);
    this.outbox = new Outbox(d.home, d.zone);
    this.conn = new LinkConnection(
      { home: d.home, env: d.env, spec: d.spec },
      { wanted: () => this.wanted(), opened: (ch) => this.opened(ch), event: (e) => this.onEvent(e) },
      d.log,
    );
  }

  /** Live mirrors of the zone here, and messages waiting: what keeps the link trying. */
  liveMirrors(): string[] {
    return zoneMirrorIds(this.d.db, this.d.zone, { live: true });
  }

  wanted(): boolean {
    return this.liveMirrors().length > 0 || this.outbox.size > 0;
  }

  private async opened(ch: Channel): Promise<void> {
    this.following.clear();
    // One ping per connection: the round trip `klaude zone list` shows (not awaited: the follows go first).
    const t0 = Date.now();
    ch.request('ping', {}, 10_000).then(
      () => (this.rttMs = Date.now() - t0),
      () => undefined,
    );
    for (const sid of this.liveMirrors()) if (!this.starting.has(sid)) await this.follow(ch, sid);
    this.flush(ch);
  }

  /** Follow `sid`'s log from the end of the copy here. */
  private async follow(ch: Channel, sid: string, at?: number): Promise<void> {
    const s = getSession(this.d.db, sid);
    if (!s) return;
    this.following.add(sid);
    try {
      await ch.request('follow', { sid, at: at ?? this.mirror.cursor(s) });
    } catch (e) {
      this.following.delete(sid);
      if (isOffline(e)) return;
      if (e instanceof KlaudeError && e.code === 'E_SESSION_NOT_FOUND') return this.lost(sid);
      this.d.log.warn('following a zone agent failed', { sid, err: e });
    }
  }

  /** The zone has no record of an agent this machine mirrors (its home was removed): the mirror ends. */
  private lost(sid: string): void {
    const s = getSession(this.d.db, sid);
    if (!s || isTerminal(s.status)) return;
    const error = `zone ${this.d.zone} has no record of it any more`;
    if (s.logPath) appendSessionEvent(s.logPath, { type: 'done', status: 'failed', error });
    updateSession(this.d.db, sid, { status: 'failed', endedAt: Date.now(), activity: null, error });
  }

  private onEvent(raw: WireEvent): void {
    const e = raw as unknown as ServeEvent;
    try {
      if (e.ev === 'log') {
        const r = this.mirror.chunk(e.sid, e.at, e.data, e.b64 === true);
        const ch = this.conn.current;
        if ('resumeAt' in r && ch) void this.follow(ch, e.sid, r.resumeAt);
      } else if (e.ev === 'row') this.onRow(e.sid, e.row);
      else if (e.ev === 'approvals') this.mirror.approvals(e.sid, e.approvals);
      else if (e.ev === 'tail-failed') this.d.log.warn('the zone cannot follow a log', { sid: e.sid, why: e.why });
    } catch (err) {
      this.d.log.error('applying a zone event failed', { err, ev: e.ev });
    }
  }

  private onRow(sid: string, row: MirrorRow): void {
    const s = this.mirror.row(sid, row);
    const ch = this.conn.current;
    if (!s || !ch) return;
    const held = this.outbox.list().some((h) => h.sid === sid);
    if (isTerminal(s.status) && !held && this.following.delete(sid)) {
      ch.request('unfollow', { sid }).catch(() => undefined); // nothing to keep if it fails: the channel is going
    } else if (!isTerminal(s.status) && !this.following.has(sid)) void this.follow(ch, sid);
  }

  /** Send the held messages, oldest first, one at a time; a dropped link stops it (the next open goes on). */
  private flush(ch: Channel): void {
    if (this.flushing) return;
    const run = async (): Promise<void> => {
      for (let next = this.outbox.list()[0]; next; next = this.outbox.list()[0]) {
        if (!(await this.sendHeld(ch, next))) return;
      }
    };
    // Assigned before it can finish: an empty outbox ends it at once, and `flushing` must not outlive it.
    const p = Promise.resolve()
      .then(run)
      .catch((err: unknown) => this.d.log.error('sending held messages failed', { err }));
    this.flushing = p;
    void p.finally(() => {
      if (this.flushing === p) this.flushing = null;
    });
  }

  /** One held message; false when the link dropped (it stays held). */
  private async sendHeld(ch: Channel, h: Held): Promise<boolean> {
    const waiter = this.waiters.get(h.key);
    try {
      const args = { sid: h.sid, prompt: h.prompt, key: h.key, held: this.heldKeys.has(h.key) };
      const r = await ch.request('message', args, 60_000);
      this.outbox.remove(h);
      waiter?.({ ok: true, v: r });
      if (!this.following.has(h.sid)) await this.follow(ch, h.sid);
    } catch (e) {
      if (isOffline(e)) return false;
      this.outbox.remove(h);
      waiter?.({ ok: false, e });
      this.d.log.warn('a held message was refused by the zone', { sid: h.sid, err: e });
      // The zone said so in the agent's log (serve-ops.ts): follow it once more, so it shows here.
      if (this.heldKeys.has(h.key) && !this.following.has(h.sid)) await this.follow(ch, h.sid);
    }
    this.heldKeys.delete(h.key);
    this.waiters.delete(h.key);
    return true;
  }

  /** `klaude message`: held first, then delivered in order; told "held" when the zone cannot take it now. */
  private async message(sid: string, prompt: string, key?: string): Promise<unknown> {
    const h = this.outbox.add(sid, prompt, key);
    const done = new Promise<{ ok: true; v: unknown } | { ok: false; e: unknown }>((r) => this.waiters.set(h.key, r));
    const ch = this.conn.current;
    if (ch) this.flush(ch);
    else this.conn.open().catch(() => undefined); // opening flushes; a failure schedules the next try
    let timer: NodeJS.Timeout | undefined;
    // A link known to be down gets a short chance (its try now), not the whole wait.
    const ms = ch ? DELIVER_WAIT_MS : OFFLINE_WAIT_MS;
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
    const r = await Promise.race([done, late]);
    clearTimeout(timer);
    if (r === null) {
      this.heldKeys.add(h.key);
      return { delivered: 'queued', pid: 0, nativeSessionId: null, held: this.d.zone };
    }
    if (!r.ok) throw r.e;
    return r.v;
  }

  private async channel(): Promise<Channel> {
    return this.conn.current ?? (await this.conn.open());
  }

  /** One request from klaude here (link-server.ts); `peer`: who sent it, as the kernel says (answers only). */
  async handle(req: LinkRequest, peer: Peer | null): Promise<unknown> {
    switch (req.op) {
      case 'kick':
        this.conn.kick();
        return {};
      case 'status':
        return this.status();
      case 'follow': {
        const ch = this.conn.current;
        if (ch && !this.following.has(req.sid)) await this.follow(ch, req.sid);
        else this.conn.kick();
        return {};
      }
      case 'start':
        return this.start(req);
      case 'message':
        return this.message(req.sid, req.prompt, req.key);
      case 'interrupt':
        return (await this.channel()).request('interrupt', { sid: req.sid, peek: req.peek === true });
      case 'answer':
        return this.answer(req, peer);
      case 'diff':
        return (await this.channel()).request('diff', { sid: req.sid, patch: req.patch }, 120_000);
      case 'commit':
        return (await this.channel()).request('commit', { sid: req.sid }, 120_000);
      case 'open-check':
        return (await this.channel()).request('open-check', { sid: req.sid });
      case 'budget':
        return (await this.channel()).request('budget', { sid: req.sid, usd: req.usd });
      case 'handover':
        return this.handover(req.sid, req.force === true);
    }
  }

  /** `klaude checkout` takes the agent's conversation here: from then on it is not a mirror to follow. */
  private async handover(sid: string, force: boolean): Promise<unknown> {
    const ch = await this.channel();
    // Stopping a run first (force) takes up to the zone's grace period or so.
    const r = await ch.request('handover', { sid, force }, 180_000);
    if (this.following.delete(sid)) ch.request('unfollow', { sid }).catch(() => undefined);
    return r;
  }

  private async start(req: ZoneStartRequest): Promise<unknown> {
    this.starting.add(req.sid);
    try {
      return await this.startThere(req);
    } finally {
      this.starting.delete(req.sid);
    }
  }

  private async startThere(req: ZoneStartRequest): Promise<unknown> {
    const ch = await this.channel();
    const { op: _op, repo, ...args } = req;
    let r: { row: MirrorRow; notes?: string[] };
    try {
      r = await ch.request('start', args, 120_000);
    } catch (e) {
      // The zone's clone lacks this machine's commit: push it there over the same connection, then again.
      const missing = e instanceof KlaudeError && e.details?.missingBase;
      if (!missing || !repo) throw e;
      await pushBase({ home: this.d.home, env: this.d.env, spec: this.d.spec }, repo, String(missing), req.sid);
      r = await ch.request('start', args, 120_000);
    }
    this.mirror.row(req.sid, r.row);
    await this.follow(ch, req.sid);
    return r;
  }

  /** The person answers here; the zone takes it from this link only. */
  private async answer(req: Extract<LinkRequest, { op: 'answer' }>, peer: Peer | null): Promise<AnswerResult> {
    const who = identifyAnswerer(this.d.db, peer ?? { pid: null, reason: 'cannot-ask' }, req, this.d.env);
    if (!who.person && this.d.config['agents.approvals'] !== 'parent') {
      this.d.log.warn('refused an answer that did not come from the person', { by: who.by, why: who.why });
      throw new KlaudeError('E_APPROVAL_BY_PERSON', `permission requests are answered by the person: ${who.why}`, {
        hint: 'answer in the klaude dashboard, or with `klaude approve`/`deny` in a terminal of your own',
      });
    }
    const ch = this.conn.current;
    if (!ch) throw offline(`zone ${this.d.zone} is not connected now: the answer was not sent`);
    const { op: _op, key: _key, webSession: _page, ...args } = req;
    const r = await ch.request<AnswerResult>('answer', { ...args, by: who.by });
    const local = approvalsOf(this.d.db, req.sid).find((a) => a.requestId === req.requestId);
    if (local && local.answer === null) {
      const answer = req.behavior === 'deny' ? 'deny' : req.always ? 'allow_always' : 'allow';
      answerApproval(this.d.db, local.id, { answer, message: req.message ?? null, by: who.by });
    }
    return { ...r, approvalId: local?.id ?? r.approvalId };
  }

  status(): LinkStatus {
    return {
      zone: this.d.zone,
      pid: process.pid,
      state: this.conn.state,
      lastError: this.conn.lastError,
      nextTryAt: this.conn.nextTryAt,
      following: [...this.following].map(shortId),
      outbox: this.outbox.size,
      rttMs: this.rttMs,
    };
  }

  close(): void {
    this.conn.close();
  }
}
