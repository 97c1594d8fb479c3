/**
 * The serve end's watch of its agents (docs/zones.md): the log of each followed agent by cursor
 * (serve-tail.ts), and the rows and permission requests of every agent a zone link started here,
 * sent when they change. Woken by the DB's own change notifications (db/watch.ts), coalesced a
 * few ms; nothing runs while nothing changes, so an idle link carries no traffic.
 */
import { approvalsOf } from '../db/repos/approvals.js';
import { getSession, sessionStates } from '../db/repos/sessions.js';
import { watchDbWrites } from '../db/watch.js';
import { zoneHeldOf } from '../core/zone.js';
import { KlaudeError } from '../lib/errors.js';
import type { AgentServices } from '../agent-ops/context.js';
import { RemoteTail } from './serve-tail.js';
import { mirrorApprovalOf, mirrorRowOf, type ServeEvent } from './wire.js';

/** Permission requests sent per agent (the newest): enough for every pending one and recent answers. */
const APPROVALS_SENT = 50;
/** Rows changed this long before the last look are looked at again (updated_at is the writer's clock). */
const OVERLAP_MS = 2000;
const COALESCE_MS = 5;

export class ServeSync {
  private readonly tails = new Map<string, RemoteTail>();
  private readonly sentRows = new Map<string, string>();
  private readonly sentApprovals = new Map<string, string>();
  private since = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private stopWatch: (() => void) | null = null;

  constructor(
    private readonly svc: AgentServices,
    private readonly send: (e: ServeEvent) => void,
  ) {}

  start(): void {
    this.stopWatch = watchDbWrites(this.svc.db.path, () => this.soon(), undefined, { immediate: true });
  }

  /** Follow `sid`'s log from byte `at` and send its row and requests now. */
  follow(sid: string, at: number): { size: number } {
    const s = getSession(this.svc.db, sid);
    if (!s || !s.logPath) throw new KlaudeError('E_SESSION_NOT_FOUND', `no agent ${sid} here`);
    this.tails.get(sid)?.close();
    const tail = new RemoteTail(s.logPath, at, {
      chunk: (pos, data, b64) => this.send({ ev: 'log', sid, at: pos, data, ...(b64 ? { b64: true } : {}) }),
      failed: (why) => this.send({ ev: 'tail-failed', sid, why }),
    });
    this.tails.set(sid, tail);
    tail.start();
    this.sentRows.delete(sid);
    this.sentApprovals.delete(sid);
    this.look(sid);
    return { size: tail.at };
  }

  unfollow(sid: string): void {
    this.tails.get(sid)?.close();
    this.tails.delete(sid);
  }

  private soon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.scan();
    }, COALESCE_MS);
  }

  /** Every changed row of a zone's agent, and the requests of the followed ones. */
  scan(): void {
    const started = Date.now();
    const changed = sessionStates(this.svc.db, this.svc.projectHash, this.since - OVERLAP_MS).map((x) => x.id);
    this.since = started;
    for (const sid of new Set([...changed, ...this.tails.keys()])) this.look(sid);
  }

  private look(sid: string): void {
    const s = getSession(this.svc.db, sid);
    if (!s || !zoneHeldOf(s)) return;
    // The log first: a row never overtakes the lines written before it.
    this.tails.get(sid)?.pump();
    const row = mirrorRowOf(s);
    const rowJson = JSON.stringify(row);
    if (this.sentRows.get(sid) !== rowJson) {
      this.sentRows.set(sid, rowJson);
      this.send({ ev: 'row', sid, row });
    }
    if (!this.tails.has(sid)) return;
    const approvals = approvalsOf(this.svc.db, sid).slice(-APPROVALS_SENT).map(mirrorApprovalOf);
    const json = JSON.stringify(approvals);
    if (this.sentApprovals.get(sid) !== json) {
      this.sentApprovals.set(sid, json);
      this.send({ ev: 'approvals', sid, approvals });
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.stopWatch?.();
    for (const t of this.tails.values()) t.close();
    this.tails.clear();
  }
}
