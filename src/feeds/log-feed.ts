/**
 * The selected session's log, live: the last events of its NDJSON file, then every appended
 * line as it is written (file notifications through `followLog`, never timers). Selecting
 * another session stops the old follower.
 */
import type { AgentEvent } from '../core/events.js';
import { followLog, type FollowOptions, type FollowEnd } from '../logs/follow.js';
import { pushMerged } from '../logs/merge-deltas.js';
import { readTail, type TailResult } from '../logs/reader.js';
import { followTranscripts, mergeByTime, readTranscripts } from '../agent-ops/timeline.js';
import { Emitter, type Source } from './store.js';
import type { Clock } from './clock.js';

export interface LogSnapshot {
  sessionId: string | null;
  file: string | null;
  /**
   * Oldest first; older events beyond the cap are dropped (`dropped` counts them). Streamed text
   * pieces are folded (logs/merge-deltas.ts). A new frozen array on every change: React may keep it.
   */
  events: readonly AgentEvent[];
  dropped: number;
  /** Bumped on every change. */
  version: number;
  /** The initial tail has been read. */
  loaded: boolean;
  /** The file does not exist (yet). */
  missing: boolean;
  error: string | null;
}

export type FollowFn = (file: string, opts: FollowOptions) => Promise<FollowEnd>;
export type TailFn = (file: string, n: number) => Promise<Pick<TailResult, 'events' | 'offset' | 'missing'>>;

export interface LogFeedOptions {
  /** Events read back from the end when a session is selected. Default 400. */
  tail?: number;
  /** Events kept in memory. Default 2000. */
  max?: number;
  follow?: FollowFn;
  readTail?: TailFn;
  /**
   * The dashboard's clock: while it ticks (a running row is on screen), streamed pieces are shown
   * on its tick, so the row's clock and the growing text cost one frame a second, not two kinds.
   */
  beat?: Pick<Clock, 'subscribe' | 'running'>;
  /** Called for every event appended (bench: time to screen). */
  onAppend?: (e: AgentEvent) => void;
  /**
   * Claude's transcripts of a session's interactive turns (agent-ops/timeline.ts), shown merged
   * in time order with its log; asked again when a new transcript appears (/clear).
   */
  transcripts?: (sessionId: string) => string[];
}

/**
 * Streamed text pieces redraw the pane at most this often (other events at once): text still
 * appears as it is written, twice a second, which is as fast as a person reads it. Every redraw
 * is a whole Ink render (React, layout and the frame's rows: ~6 ms at 140×34 on the bench
 * machine even with rows reused, ui/render/frame-output.ts), so the number of frames is the cost.
 */
export const DELTA_FRAME_MS = 500;
/** While the beat ticks (once a second) its tick shows the pieces; this only guards a late tick. */
const BEAT_GRACE_MS = 1200;

const EMPTY: LogSnapshot = {
  sessionId: null,
  file: null,
  events: Object.freeze([]),
  dropped: 0,
  version: 0,
  loaded: true,
  missing: false,
  error: null,
};

export class LogFeed extends Emitter implements Source<LogSnapshot> {
  private snapshot: LogSnapshot = EMPTY;
  private events: AgentEvent[] = [];
  private abort: AbortController | undefined;
  private notifyQueued = false;
  private deltaTimer: NodeJS.Timeout | undefined;
  private transcriptsKey = '';
  private readonly tail: number;
  private readonly max: number;
  private readonly follow: FollowFn;
  private readonly readTail: TailFn;

  constructor(private readonly opts: LogFeedOptions = {}) {
    super();
    this.tail = opts.tail ?? 400;
    this.max = opts.max ?? 2000;
    this.follow = opts.follow ?? followLog;
    this.readTail = opts.readTail ?? readTail;
    // Synchronously in the tick: React batches this change with the clock's into one frame.
    // (The feed lives as long as the clock it is given: no unsubscribe.)
    opts.beat?.subscribe(() => this.flushDeltas());
  }

  getSnapshot = (): LogSnapshot => this.snapshot;

  /** Follow this session's log (`file` null: it has none). Re-selecting the same one is a no-op. */
  select(sessionId: string | null, file: string | null): void {
    // (a session that became interactive meanwhile, e.g. opened with Enter, gets its transcript on re-select)
    const transcripts = sessionId && this.opts.transcripts ? this.opts.transcripts(sessionId) : [];
    const key = transcripts.join('\n');
    if (sessionId === this.snapshot.sessionId && file === this.snapshot.file && key === this.transcriptsKey) return;
    this.transcriptsKey = key;
    this.abort?.abort();
    this.abort = undefined;
    this.clearDeltaTimer();
    this.events = [];
    this.snapshot = {
      sessionId,
      file,
      events: EMPTY.events,
      dropped: 0,
      version: this.snapshot.version + 1,
      loaded: file === null,
      missing: false,
      error: null,
    };
    this.emit();
    if (!file) return;
    const ac = new AbortController();
    this.abort = ac;
    const fail = (err: unknown): void => {
      if (!ac.signal.aborted) this.update({ error: `cannot read ${file}: ${(err as Error).message}`, loaded: true });
    };
    const onEvent = (e: AgentEvent): void => {
      if (ac.signal.aborted) return;
      pushMerged(this.events, e);
      this.opts.onAppend?.(e);
      if (e.type === 'text_delta' || e.type === 'thinking_delta') this.queueDeltaNotify();
      else this.queueNotify();
    };
    const listTranscripts = (): string[] =>
      sessionId && this.opts.transcripts ? this.opts.transcripts(sessionId) : [];
    // The tail first (so "loaded" is a known moment), then everything after it as it is written.
    Promise.all([this.readTail(file, this.tail), readTranscripts(transcripts)]).then(([t, history]) => {
      if (ac.signal.aborted) return;
      const first = mergeByTime(t.events, history.events).slice(-this.tail);
      for (const e of first) pushMerged(this.events, e);
      this.update({
        loaded: true,
        missing: t.missing && history.events.length === 0,
        events: Object.freeze(this.events.slice()),
      });
      if (history.offsets.size > 0) followTranscripts({ history, list: listTranscripts, onEvent, signal: ac.signal });
      this.follow(file, {
        fromOffset: t.offset,
        signal: ac.signal,
        onEvent,
      }).catch(fail);
    }, fail);
  }

  close(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.clearDeltaTimer();
  }

  /** Show the pieces waiting for a redraw now. */
  private flushDeltas(): void {
    if (!this.deltaTimer || this.notifyQueued) return;
    this.clearDeltaTimer();
    this.publish();
  }

  private clearDeltaTimer(): void {
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
  }

  private queueDeltaNotify(): void {
    if (this.deltaTimer || this.notifyQueued) return;
    this.deltaTimer = setTimeout(
      () => {
        this.deltaTimer = undefined;
        this.queueNotify();
      },
      this.opts.beat?.running ? BEAT_GRACE_MS : DELTA_FRAME_MS,
    );
  }

  private queueNotify(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    queueMicrotask(() => {
      this.notifyQueued = false;
      this.clearDeltaTimer();
      this.publish();
    });
  }

  private publish(): void {
    let dropped = this.snapshot.dropped;
    if (this.events.length > this.max) {
      const cut = this.events.length - Math.floor(this.max * 0.75);
      this.events.splice(0, cut);
      dropped += cut;
    }
    this.snapshot = Object.freeze({
      ...this.snapshot,
      events: Object.freeze(this.events.slice()),
      dropped,
      missing: false,
      version: this.snapshot.version + 1,
    });
    this.emit();
  }

  private update(patch: Partial<LogSnapshot>): void {
    this.snapshot = Object.freeze({ ...this.snapshot, ...patch, version: this.snapshot.version + 1 });
    this.emit();
  }
}
