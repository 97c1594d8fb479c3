/**
 * Following a session log live: file-system notifications (fs.watch), never timers.
 *
 * - The file is watched while it exists; until then (and after it is deleted or replaced) its
 *   directory is watched, or the nearest existing ancestor when the directory does not exist yet.
 * - Each notification reads from the last offset to the current end, synchronously on a file
 *   kept open; a backlog bigger than a few MiB is read a slice per turn of the event loop, and
 *   notifications meanwhile are coalesced into one more read.
 * - A torn last line is held until its newline arrives. A file that shrinks (truncated) or is
 *   replaced (another file identity: inode and birth time, so a reused inode number still counts as
 *   new) or deleted and created again is read again from the start.
 * - Any number of followers of one file may run at once: each has its own watchers and offset.
 */
import { closeSync, fstatSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { AgentEvent, EventOf } from '../core/events.js';
import { KlaudeError } from '../lib/errors.js';
import { endsLine, sizeNow } from './file-probe.js';
import { NdjsonDecoder, readTail } from './reader.js';

export interface FollowOptions {
  /** Called for each event, in file order, with its line as written. Must not throw (a throw ends the follow with that error). */
  onEvent: (event: AgentEvent, line: string) => void;
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

const READ_CHUNK = 256 * 1024;
/** Bytes read in one turn of the event loop before yielding (a follower catching up on a big file). */
const YIELD_BYTES = 8 * 1024 * 1024;

/** Follow `file` until aborted, done (`untilDone`) or `stopWhen`. Rejects on a read/watch error or a throwing `onEvent`. */
export function followLog(file: string, opts: FollowOptions): Promise<FollowEnd> {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const base = path.basename(target);

  return new Promise<FollowEnd>((resolve, reject) => {
    let finished = false;
    let ready = false; // initial position known
    let reading = false;
    let again = false;
    let offset = 0;
    let identity: string | undefined; // of the file last read: dev:ino:birthtime
    const decoder = new NdjsonDecoder(0);
    let pendingDone: EventOf<'done'> | undefined;
    let lastEvent: AgentEvent | undefined;
    let deliveredEnd = 0; // byte offset just past the last line handed to onEvent
    let fileWatcher: FSWatcher | undefined;
    let dirWatcher: { watcher: FSWatcher; dir: string } | undefined;

    const cleanup = (): void => {
      closeFd();
      fileWatcher?.close();
      fileWatcher = undefined;
      dirWatcher?.watcher.close();
      dirWatcher = undefined;
      opts.signal?.removeEventListener('abort', onAbort);
    };
    const finish = (reason: FollowEnd['reason'], done?: EventOf<'done'>): void => {
      if (finished) return;
      finished = true;
      cleanup();
      resolve({ reason, offset: deliveredEnd, ...(done ? { done } : {}), ...(lastEvent ? { lastEvent } : {}) });
    };
    const fail = (e: unknown): void => {
      if (finished) return;
      finished = true;
      cleanup();
      reject(e);
    };
    function onAbort(): void {
      finish('aborted');
    }

    /** Hand one event to the caller; true when following should stop now. */
    const deliver = (event: AgentEvent, line: string, end: number): boolean => {
      lastEvent = event;
      deliveredEnd = end;
      try {
        opts.onEvent(event, line);
      } catch (e) {
        fail(e);
        return true;
      }
      if (event.type === 'done') pendingDone = event;
      else if (pendingDone && continuesAfterDone(event)) pendingDone = undefined;
      if (opts.stopWhen?.(event)) {
        finish('stopped');
        return true;
      }
      return false;
    };
    const checkDone = (): void => {
      if (opts.untilDone && pendingDone && decoder.pending === 0) finish('done', pendingDone);
    };

    const startOver = (): void => {
      offset = 0;
      deliveredEnd = 0;
      decoder.reset(0);
      pendingDone = undefined;
    };

    // The file stays open between notifications and is read synchronously: an append of a few
    // bytes then costs one stat and one read on this thread, where an async read costs four trips
    // through the thread pool (open, stat, read, close) and a fresh 256 KiB buffer each time. With
    // an agent streaming 20 pieces a second that was most of a dashboard's CPU while it watched.
    let fd: number | undefined;
    let buf: Buffer | undefined;
    const closeFd = (): void => {
      if (fd === undefined) return;
      try {
        closeSync(fd);
      } catch {
        /* already gone */
      }
      fd = undefined;
    };
    const idOf = (st: { dev: number; ino: number; birthtimeMs: number }): string =>
      `${st.dev}:${st.ino}:${st.birthtimeMs}`;

    /** Read what is new since `offset`: true when it stopped at `budget` bytes with more to read. */
    const readNew = (budget: number): boolean => {
      let st;
      try {
        st = statSync(target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        // Gone (deleted or renamed away): whatever appears at the path next is a new file.
        closeFd();
        if (identity !== undefined) startOver();
        identity = undefined;
        return false;
      }
      if (fd === undefined || idOf(st) !== identity) {
        closeFd();
        fd = openSync(target, 'r');
        // The identity of what was opened (the path may have been replaced since the stat).
        st = fstatSync(fd);
      }
      const id = idOf(st);
      // Replaced or truncated: the content we had is gone.
      if ((identity !== undefined && id !== identity) || st.size < offset) startOver();
      identity = id;
      buf ??= Buffer.allocUnsafe(READ_CHUNK);
      let read = 0;
      while (!finished) {
        if (read >= budget) return true;
        const bytesRead = readSync(fd, buf, 0, READ_CHUNK, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        read += bytesRead;
        for (const l of decoder.push(buf.subarray(0, bytesRead))) {
          if (finished || deliver(l.event, l.line, l.end)) return false;
        }
        // A short read is the end: no extra read to find it (a later append notifies again).
        if (bytesRead < READ_CHUNK) break;
      }
      return false;
    };

    const kick = (): void => {
      if (finished) return;
      if (!ready || reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        let more = false;
        do {
          again = false;
          more = readNew(YIELD_BYTES);
          if (!finished && !more) checkDone();
        } while (again && !more && !finished);
        // A big backlog is read a slice per turn of the event loop, so the process stays responsive.
        if (more && !finished) {
          setImmediate(() => {
            reading = false;
            kick();
          });
          return;
        }
      } catch (e) {
        fail(
          e instanceof KlaudeError
            ? e
            : new KlaudeError('E_IO', `cannot read ${target}: ${(e as Error).message}`, { cause: e }),
        );
      }
      reading = false;
    };

    const watchError = (e: unknown): KlaudeError =>
      new KlaudeError('E_IO', `cannot watch ${target}: ${(e as Error).message}`, {
        hint: 'the system may be out of file watches (fs.inotify.max_user_watches)',
        cause: e,
      });

    /** Watch the file itself; falls back to its directory when it does not exist. */
    const armFile = (): void => {
      if (finished || fileWatcher) return;
      let w: FSWatcher;
      try {
        w = watch(target, { persistent: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          armDir();
          return;
        }
        fail(watchError(e));
        return;
      }
      fileWatcher = w;
      w.on('change', (type) => {
        kick();
        if (type === 'rename') rearm(w); // deleted, renamed away, or replaced
      });
      w.on('error', () => rearm(w));
      dirWatcher?.watcher.close();
      dirWatcher = undefined;
      kick(); // it may have grown between the last read and the watch
    };

    const rearm = (w: FSWatcher): void => {
      if (fileWatcher !== w) return;
      w.close();
      fileWatcher = undefined;
      armFile();
    };

    /** Watch the file's directory (or its nearest existing ancestor) until the file appears. */
    const armDir = (): void => {
      if (finished) return;
      let d = dir;
      for (;;) {
        try {
          const w = watch(d, { persistent: true });
          dirWatcher?.watcher.close();
          const watched = d;
          dirWatcher = { watcher: w, dir: d };
          w.on('change', (_type, name) => {
            if (dirWatcher?.watcher !== w) return;
            const n = name == null ? null : String(name);
            if (watched === dir ? n === null || n === base : true) onDirEvent();
          });
          w.on('error', () => {
            if (dirWatcher?.watcher !== w) return;
            w.close();
            dirWatcher = undefined;
            armDir();
          });
          break;
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          const parent = path.dirname(d);
          if ((code === 'ENOENT' || code === 'ENOTDIR') && parent !== d) {
            d = parent;
            continue;
          }
          fail(watchError(e));
          return;
        }
      }
      // The file (or a deeper directory) may have appeared before the watch was in place.
      onDirEvent();
    };

    /** The file's directory, or its nearest existing ancestor. */
    const deepestExisting = async (): Promise<string> => {
      let d = dir;
      for (;;) {
        try {
          await stat(d);
          return d;
        } catch {
          const parent = path.dirname(d);
          if (parent === d) return d;
          d = parent;
        }
      }
    };

    const onDirEvent = (): void => {
      if (finished || fileWatcher) return;
      // Runs beside the watcher callback that started it; a failure to watch ends in fail().
      void (async () => {
        try {
          await stat(target);
          armFile();
          return;
        } catch {
          /* still missing */
        }
        try {
          // Watching an ancestor: move down as soon as a deeper level exists (watches are not recursive).
          if (!dirWatcher || dirWatcher.dir === dir) return;
          const d = await deepestExisting();
          if (!finished && !fileWatcher && dirWatcher && d !== dirWatcher.dir) armDir();
        } catch (e) {
          fail(watchError(e));
        }
      })();
    };

    if (opts.signal?.aborted) {
      finish('aborted');
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    // "Only what comes next" means next after this call, not after the tail read below finished:
    // lines appended meanwhile are delivered (when the file ends at a line boundary now).
    const sizeAtCall = opts.fromTail === 0 ? sizeNow(target) : undefined;
    const nextFrom = (tailOffset: number): number =>
      sizeAtCall !== undefined && sizeAtCall < tailOffset && endsLine(target, sizeAtCall) ? sizeAtCall : tailOffset;

    // Watch first, then read: anything written in between triggers one more read.
    armFile();
    if (finished) return;

    // The first read runs beside the watchers; its own catch reports through fail().
    void (async () => {
      try {
        if (opts.fromOffset !== undefined) {
          offset = Math.max(0, opts.fromOffset);
          deliveredEnd = offset;
        } else if (opts.fromTail !== undefined) {
          const tail = await readTail(target, opts.fromTail);
          offset = opts.fromTail === 0 ? nextFrom(tail.offset) : tail.offset;
          deliveredEnd = tail.events.length ? tail.ends[0]! - Buffer.byteLength(tail.lines[0]!) - 1 : tail.offset;
          for (let i = 0; i < tail.events.length; i++) {
            if (finished || deliver(tail.events[i]!, tail.lines[i]!, tail.ends[i]!)) return;
          }
        }
        decoder.reset(offset);
        if (finished) return;
        ready = true;
        kick();
      } catch (e) {
        fail(new KlaudeError('E_IO', `cannot read ${target}: ${(e as Error).message}`, { cause: e }));
      }
    })();
  });
}
