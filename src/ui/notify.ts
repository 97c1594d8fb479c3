/**
 * "A session needs you": when a session enters `waiting` (set by the Notification hook on a
 * permission prompt or a question; never guessed from screen text), tell the person once per
 * transition — the terminal bell and/or an OSC 9 desktop notification (config `ui.notify`) — and
 * keep the count in the terminal title ("klaude (2 waiting)").
 *
 * It reads the sessions feed (subscribe/getSnapshot), so it costs nothing until the DB changes.
 * Sessions already waiting when it starts count in the title but do not ring.
 *
 * Also "an agent finished": a sub-agent going from working (pending, running, waiting) to done,
 * failed or interrupted rings the same way, once, so nobody has to sit in `klaude wait`.
 */
import type { NotifyMode } from '../config/schema.js';
import { shortId } from '../core/ids.js';
import { BEL, osc9 } from '../lib/escapes.js';
import { isTerminal } from '../core/status.js';
import type { SessionsSnapshot } from '../feeds/sessions-feed.js';
import type { Source } from '../feeds/store.js';
import type { SessionView } from '../feeds/session-tree.js';

export type { NotifyMode };

/** OSC 52: set the clipboard (`c`) to this text, base64; through tmux/ssh where they pass it on. */

export interface WaitingNotifierOptions {
  source: Source<SessionsSnapshot>;
  mode: NotifyMode;
  /** Write a notification to the terminal (BEL / OSC 9). */
  write(seq: string): void;
  /** Set the terminal title (the dashboard host writes it while it shows). */
  setTitle(title: string): void;
  /** A session the person is looking at right now (talking to it, or it has the terminal): no ring for it. */
  inFront?(): string | null;
}

export function titleFor(waiting: number): string {
  return waiting > 0 ? `klaude (${waiting} waiting)` : 'klaude';
}

const who = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;

export class WaitingNotifier {
  private waiting = new Set<string>();
  /** Sub-agents at work, to notice when one finishes. */
  private working = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private lastVersion = -1;
  /** Notifications sent (diagnostics, tests). */
  rung = 0;

  constructor(private readonly opts: WaitingNotifierOptions) {}

  start(): void {
    if (this.unsubscribe) return;
    this.waiting = this.waitingNow(this.opts.source.getSnapshot());
    this.working = this.workingNow(this.opts.source.getSnapshot());
    this.lastVersion = this.opts.source.getSnapshot().version;
    this.opts.setTitle(titleFor(this.waiting.size));
    this.unsubscribe = this.opts.source.subscribe(this.update);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private waitingNow(snap: SessionsSnapshot): Set<string> {
    return new Set(snap.sessions.filter((s) => s.status === 'waiting' && s.archivedAt === null).map((s) => s.id));
  }

  private workingNow(snap: SessionsSnapshot): Set<string> {
    return new Set(snap.sessions.filter((s) => s.type !== 'tui' && !isTerminal(s.status)).map((s) => s.id));
  }

  private ring(text: string): void {
    let seq = '';
    if (this.opts.mode === 'bell' || this.opts.mode === 'both') seq += BEL;
    if (this.opts.mode === 'osc9' || this.opts.mode === 'both') seq += osc9(text);
    this.rung++;
    this.opts.write(seq);
  }

  private update = (): void => {
    const snap = this.opts.source.getSnapshot();
    if (snap.version === this.lastVersion) return;
    this.lastVersion = snap.version;
    const now = this.waitingNow(snap);
    const fresh = [...now].filter((id) => !this.waiting.has(id));
    const front = this.opts.inFront?.() ?? null;
    const changed = now.size !== this.waiting.size || fresh.length > 0;
    this.waiting = now;
    if (changed) this.opts.setTitle(titleFor(now.size));
    const working = this.workingNow(snap);
    const finished = snap.sessions.filter((s) => this.working.has(s.id) && !working.has(s.id) && isTerminal(s.status));
    this.working = working;
    if (this.opts.mode === 'none') return;
    for (const id of fresh) {
      if (id === front) continue;
      const s = snap.sessions.find((x) => x.id === id)!;
      const ask = snap.approvals?.get(id)?.[0];
      this.ring(
        `klaude: ${who(s)}${ask ? ` needs approval: ${ask.toolName}: ${ask.summary.slice(0, 80)}` : ` needs you${s.title ? ` (${s.title.slice(0, 60)})` : ''}`}`,
      );
    }
    for (const s of finished) {
      if (s.id === front) continue;
      this.ring(`klaude: ${who(s)} finished: ${s.status}`);
    }
  };
}
