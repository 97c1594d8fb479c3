/**
 * Following a session log live: file-system notifications (fs.watch), never timers.
 *
 * - The file is watched while it exists; until then (and after it is deleted or replaced) its
 *   directory is watched, or the nearest existing ancestor when the directory does not exist yet
 *   (path-watcher.ts).
 * - Each notification reads from the last offset to the current end, synchronously on a file
 *   kept open; a backlog bigger than a few MiB is read a slice per turn of the event loop, and
 *   notifications meanwhile are coalesced into one more read.
 * - A torn last line is held until its newline arrives. A file that shrinks (truncated) or is
 *   replaced (another file identity: inode and birth time, so a reused inode number still counts as
 *   new) or deleted and created again is read again from the start (log-cursor.ts).
 * - Any number of followers of one file may run at once: each has its own watchers and offset.
 */
import path from 'node:path';
import type { AgentEvent, EventOf } from '../core/events.js';
import { KlaudeError } from '../lib/errors.js';
import { endsLine, sizeNow } from './file-probe.js';
import { LogCursor } from './log-cursor.js';
import { PathWatcher } from './path-watcher.js';
import { readTail } from './reader.js';

export interface FollowOptions {
  /**
   * Called for each event, in file order, with its line as written and the byte offset just past
   * it. Must not throw (a throw ends the follow with that error).
   */
  onEvent: (event: AgentEvent, line: string, end: number) => void;
  /** Start with the whole file (the default when no other start is given). */
  fromStart?: boolean;
  /** Start with the last `n` events (read backwards; the file is not read whole). 0 = only what comes next. */
  fromTail?: number;
  /** Start at this byte offset (a line start, e.g. `TailResult.offset` or `LogLine.end`). */
  fromOffset?: number;
  /** Stops following (resolves with reason 'aborted'). */
  signal?: AbortSignal;
  /**
   * Resolve once the agent is done: after a `done` event that is the latest thing in the file. A
   * `done` followed by more turn activity (a follow-up message, new text or tool calls) does not
   * end the follow, so a log with several turns is followed to its real end.
   */
  untilDone?: boolean;
  /** Resolve (reason 'stopped') right after an event for which this returns true. */
  stopWhen?: (event: AgentEvent) => boolean;
}

export interface FollowEnd {
  reason: 'done' | 'stopped' | 'aborted';
  /** Byte offset just past the last line delivered (where to resume without repeating or missing a line). */
  offset: number;
  /** The `done` event that ended it (reason 'done'). */
  done?: EventOf<'done'>;
  /** The last event delivered, if any. */
  lastEvent?: AgentEvent;
}

/** Events after a `done` that mean the agent went on with another turn. */
function continuesAfterDone(e: AgentEvent): boolean {
  switch (e.type) {
    case 'user':
    case 'init':
    case 'text':
    case 'text_delta':
    case 'thinking_delta':
    case 'retry':
    case 'tool_call':
    case 'tool_result':
    case 'update':
      return true;
    case 'status':
      return e.status === 'running' || e.status === 'waiting';
    default:
      return false;
  }
}

/** Bytes read in one turn of the event loop before yielding (a follower catching up on a big file). */
const YIELD_BYTES = 8 * 1024 * 1024;

/**
 * One follow of one file: delivers its lines in order, reads again on each notification, and ends
 * once (finish or fail), closing the file and its watches.
 */
export class LogFollower {
  readonly target: string;
  finished = false;
  /** The initial position is known (reads before it are deferred). */
  ready = false;
  private reading = false;
  /** A notification came while a read was running or the start was not known: read once more. */
  private again = false;
  pendingDone: EventOf<'done'> | undefined;
  lastEvent: AgentEvent | undefined;
  /** Byte offset just past the last line handed to onEvent. */
  deliveredEnd = 0;
  readonly cursor: LogCursor;
  private readonly watcher: PathWatcher;
  private resolve: (end: FollowEnd) => void = () => undefined;
  private reject: (e: unknown) => void = () => undefined;
  private readonly onAbort = (): void => this.finish('aborted');

  constructor(
    file: string,
    private readonly opts: FollowOptions,
  ) {
    this.target = path.resolve(file);
    this.cursor = new LogCursor(this.target, {
      stopped: () => this.finished,
      line: (l) => this.deliver(l.event, l.line, l.end),
      startOver: () => {
        this.deliveredEnd = 0;
        this.pendingDone = undefined;
      },
    });
    this.watcher = new PathWatcher(this.target, { change: () => this.kick(), fail: (e) => this.fail(e) });
  }

  /** Follow until aborted, done (`untilDone`) or `stopWhen`; rejects on a read/watch error or a throwing `onEvent`. */
  run(): Promise<FollowEnd> {
    return new Promise<FollowEnd>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.start();
    });
  }

  private start(): void {
    const { signal } = this.opts;
    if (signal?.aborted) {
      this.finish('aborted');
      return;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    // "Only what comes next" means next after this call, not after the tail read below finished:
    // lines appended meanwhile are delivered (when the file ends at a line boundary now).
    const sizeAtCall = this.opts.fromTail === 0 ? sizeNow(this.target) : undefined;
    // Watch first, then read: anything written in between triggers one more read.
    this.watcher.start();
    if (this.finished) return;
    // The first read runs beside the watchers; its own catch reports through fail().
    void this.position(sizeAtCall).catch((e: unknown) =>
      this.fail(new KlaudeError('E_IO', `cannot read ${this.target}: ${(e as Error).message}`, { cause: e })),
    );
  }

  /** Find where to start (delivering a tail first when asked), then read what follows. */
  private async position(sizeAtCall: number | undefined): Promise<void> {
    const { fromOffset, fromTail } = this.opts;
    let offset = 0;
    if (fromOffset !== undefined) {
      offset = Math.max(0, fromOffset);
      this.deliveredEnd = offset;
    } else if (fromTail !== undefined) {
      const tail = await readTail(this.target, fromTail);
      offset = fromTail === 0 ? this.nextFrom(sizeAtCall, tail.offset) : tail.offset;
      this.deliveredEnd = tail.events.length ? tail.ends[0]! - Buffer.byteLength(tail.lines[0]!) - 1 : tail.offset;
      for (let i = 0; i < tail.events.length; i++) {
        if (this.finished || this.deliver(tail.events[i]!, tail.lines[i]!, tail.ends[i]!)) return;
      }
    }
    this.cursor.seek(offset);
    if (this.finished) return;
    this.ready = true;
    this.kick();
  }

  /** Where "only what comes next" starts: the size at the call when that was a line start before the tail's end. */
  private nextFrom(sizeAtCall: number | undefined, tailOffset: number): number {
    return sizeAtCall !== undefined && sizeAtCall < tailOffset && endsLine(this.target, sizeAtCall)
      ? sizeAtCall
      : tailOffset;
  }

  /** Hand one event to the caller; true when following should stop now. */
  private deliver(event: AgentEvent, line: string, end: number): boolean {
    this.lastEvent = event;
    this.deliveredEnd = end;
    try {
      this.opts.onEvent(event, line, end);
    } catch (e) {
      this.fail(e);
      return true;
    }
    if (event.type === 'done') this.pendingDone = event;
    else if (this.pendingDone && continuesAfterDone(event)) this.pendingDone = undefined;
    if (this.opts.stopWhen?.(event)) {
      this.finish('stopped');
      return true;
    }
    return false;
  }

  private checkDone(): void {
    if (this.opts.untilDone && this.pendingDone && this.cursor.pending === 0) this.finish('done', this.pendingDone);
  }

  /** A notification: read what is new now, or once more after the read under way. */
  private kick(): void {
    if (this.finished) return;
    if (!this.ready || this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    try {
      let more = false;
      do {
        this.again = false;
        more = this.cursor.readNew(YIELD_BYTES);
        if (!this.finished && !more) this.checkDone();
      } while (this.again && !more && !this.finished);
      // A big backlog is read a slice per turn of the event loop, so the process stays responsive.
      if (more && !this.finished) {
        setImmediate(() => {
          this.reading = false;
          this.kick();
        });
        return;
      }
    } catch (e) {
      this.fail(
        e instanceof KlaudeError
          ? e
          : new KlaudeError('E_IO', `cannot read ${this.target}: ${(e as Error).message}`, { cause: e }),
      );
    }
    this.reading = false;
  }

  private cleanup(): void {
    this.cursor.close();
    this.watcher.close();
    this.opts.signal?.removeEventListener('abort', this.onAbort);
  }

  private finish(reason: FollowEnd['reason'], done?: EventOf<'done'>): void {
    if (this.finished) return;
    this.finished = true;
    this.cleanup();
    const { deliveredEnd: offset, lastEvent } = this;
    this.resolve({ reason, offset, ...(done ? { done } : {}), ...(lastEvent ? { lastEvent } : {}) });
  }

  private fail(e: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.cleanup();
    this.reject(e);
  }
}

/** Follow `file` until aborted, done (`untilDone`) or `stopWhen`. Rejects on a read/watch error or a throwing `onEvent`. */
export function followLog(file: string, opts: FollowOptions): Promise<FollowEnd> {
  return new LogFollower(file, opts).run();
}
