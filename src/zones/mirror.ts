/**
 * This machine's copy of the agents that run in a zone (docs/zones.md "The mirror"): each agent's
 * row here takes the columns its row over there has, its log here is a byte-for-byte copy of the
 * log over there — so its size is the cursor a reconnect resumes from and nothing is lost or said
 * twice — and its permission requests are rows here too, answered here by the person. Everything
 * that reads rows and logs (listings, the dashboard, the web page, `watch`, `wait`) shows a zone's
 * agent as it shows one of this machine. Notifications and `[UPDATE]`/`[NEEDS APPROVAL]` notes for
 * a parent here are told by this process, the one that records them here.
 */
import { appendFileSync, closeSync, existsSync, openSync, readSync, statSync, truncateSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Db } from '../db/client.js';
import { addApproval, answerApproval, approvalsOf } from '../db/repos/approvals.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { addUpdate } from '../db/repos/updates.js';
import { isTerminal } from '../core/status.js';
import { zoneOf } from '../core/zone.js';
import { parseEventLine } from '../logs/reader.js';
import { notify } from '../agent-ops/notify.js';
import type { Logger } from '../lib/logger.js';
import type { MirrorApproval, MirrorRow } from './wire.js';

export interface MirrorDeps {
  db: Db;
  config: Config;
  log: Logger;
  env: NodeJS.ProcessEnv;
}

/** What a chunk did: appended bytes, or the cursor the other side must resume from instead. */
export type ChunkResult = { appended: number } | { resumeAt: number };

export class Mirror {
  /** Local log sizes known to be exact (set on follow, advanced on append). */
  private readonly sizes = new Map<string, number>();

  constructor(private readonly d: MirrorDeps) {}

  /**
   * `sid`'s row while it is a mirror: once `klaude checkout` brought its conversation here it is an
   * agent of this machine, and nothing from over there touches its row or its log again.
   */
  private mirrored(sid: string): SessionRow | undefined {
    const s = getSession(this.d.db, sid);
    return s && zoneOf(s) ? s : undefined;
  }

  /** Where the copy of `sid`'s log ends (a torn last line, left by a crash mid-append, is cut off first). */
  cursor(s: SessionRow): number {
    if (!s.logPath) return 0;
    const size = existsSync(s.logPath) ? wholeLines(s.logPath) : 0;
    this.sizes.set(s.id, size);
    return size;
  }

  /** Log bytes from over there at byte `at`: appended when they continue the copy. */
  chunk(sid: string, at: number, data: string, b64: boolean): ChunkResult {
    const s = this.mirrored(sid);
    if (!s?.logPath) return { appended: 0 };
    const size = this.sizes.get(sid) ?? this.cursor(s);
    let bytes = b64 ? Buffer.from(data, 'base64') : Buffer.from(data, 'utf8');
    if (at > size) return { resumeAt: size }; // a gap: ask again from where the copy ends
    if (at < size) {
      if (at + bytes.length <= size) return { appended: 0 }; // seen already
      bytes = bytes.subarray(size - at);
    }
    appendFileSync(s.logPath, bytes, { mode: 0o600 });
    this.sizes.set(sid, size + bytes.length);
    this.notesFrom(s, bytes.toString('utf8'));
    return { appended: bytes.length };
  }

  /** `[UPDATE]` lines of the agent become notes for its parent here, as its runtime makes them over there. */
  private notesFrom(s: SessionRow, text: string): void {
    if (!text.includes('"update"')) return;
    for (const line of text.split('\n')) {
      const e = line ? parseEventLine(line) : null;
      if (e?.type === 'update') addUpdate(this.d.db, { sessionId: s.id, parentSessionId: s.parentId, text: e.text });
    }
  }

  /** The row over there changed: the mirror takes its columns; an end is told here. */
  row(sid: string, row: MirrorRow): SessionRow | undefined {
    const before = this.mirrored(sid);
    if (!before) return undefined;
    const patch: Partial<MirrorRow> = {};
    for (const k of Object.keys(row) as (keyof MirrorRow)[]) {
      if (before[k] !== row[k]) (patch as Record<string, unknown>)[k] = row[k];
    }
    if (Object.keys(patch).length === 0) return before;
    const after = updateSession(this.d.db, sid, patch)!;
    if (!isTerminal(before.status) && isTerminal(after.status)) this.tellEnd(after);
    return after;
  }

  private tellEnd(s: SessionRow): void {
    if (s.status !== 'done' && s.status !== 'failed') return;
    notify(this.d, {
      kind: s.status,
      sessionId: s.id,
      eventKey: `${s.status}:${s.id}:${s.runStartedAt ?? s.createdAt}`,
      ...(s.status === 'failed' && s.error ? { detail: s.error.slice(0, 120) } : {}),
    });
  }

  /** The agent's permission requests over there: new ones become rows here (and tell), answered ones are answered here. */
  approvals(sid: string, list: readonly MirrorApproval[]): void {
    const s = this.mirrored(sid);
    if (!s) return;
    const here = new Map(approvalsOf(this.d.db, sid).map((a) => [a.requestId, a]));
    for (const a of list) {
      let row = here.get(a.requestId);
      if (!row) {
        row = addApproval(this.d.db, {
          sessionId: sid,
          requestId: a.requestId,
          toolName: a.tool,
          summary: a.summary,
          input: a.input,
          suggestions: a.suggestions,
          suggestedRule: a.rule,
          reason: a.reason,
        });
        if (a.answer === null) this.tellRequest(s, row.id, a);
      }
      if (a.answer !== null && row.answer === null)
        answerApproval(this.d.db, row.id, { answer: a.answer, message: a.message, by: a.by ?? 'the zone' });
    }
  }

  private tellRequest(s: SessionRow, approvalId: number, a: MirrorApproval): void {
    const text = `${a.tool}: ${a.summary}`;
    const kind = this.d.config['agents.approvals'] === 'parent' ? 'approval_parent' : 'approval';
    addUpdate(this.d.db, { sessionId: s.id, parentSessionId: s.parentId, text, kind });
    notify(this.d, {
      kind: 'needs_you',
      sessionId: s.id,
      eventKey: `needs_you:approval:zone:${s.id}:${a.requestId}`,
      detail: text,
      tool: a.tool,
      summary: a.summary,
    });
    this.d.log.info('zone permission request', { sid: s.id, approvalId, tool: a.tool });
  }
}

/** The file's size up to its last newline; a torn tail (a crash mid-append) is cut off. */
function wholeLines(file: string): number {
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  try {
    const step = 64 * 1024;
    const buf = Buffer.alloc(step);
    let end = 0;
    for (let to = size; to > 0 && end === 0; to -= step) {
      const from = Math.max(0, to - step);
      readSync(fd, buf, 0, to - from, from);
      const nl = buf.subarray(0, to - from).lastIndexOf(0x0a);
      if (nl !== -1) end = from + nl + 1;
    }
    if (end !== size) truncateSync(file, end);
    return end;
  } finally {
    closeSync(fd);
  }
}
