/**
 * A turn a person ends by hand runs no hook. With claude 2.1.197, Esc during a reply, or Esc
 * ("No") at a permission dialog, fires neither Stop nor PostToolUseFailure, and no idle_prompt
 * Notification follows (checked for 65 s): the row would say `running` (or `waiting`) until the
 * next prompt. What claude does write is a user message in its transcript, `[Request interrupted
 * by user]` or `[Request interrupted by user for tool use]` (docs/transcript-format.md).
 *
 * So the process that runs an interactive claude (the supervisor for its foreground, the PTY
 * server for its sessions) follows those sessions' transcripts while a turn runs, and ends the
 * turn (idle, no activity) when such a line appears. No polling: a DB write (a hook) decides
 * which transcripts to watch; fs.watch on a transcript reads only its new bytes.
 *
 * A marker older than the turn's start (run_started_at, set by UserPromptSubmit) belongs to an
 * earlier turn and changes nothing: a late read can never end the turn that followed it.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { HasSqlite } from '../db/connection.js';
import { addEvent } from '../db/repos/events.js';
import { endTurnIdle, readTurn, type TurnRow } from '../db/repos/turns.js';
import { watchDbWrites } from '../db/watch.js';
import { LineDecoder } from '../lib/line-decoder.js';
import type { Logger } from '../lib/logger.js';

const MARK = '[Request interrupted by user';
/** How far back a transcript is read when a turn's watch starts (an Esc before the watch began). */
const LOOK_BACK = 256 * 1024;
const CHUNK = 64 * 1024;
/** One read buffer for every tail: reads are synchronous, and a PTY server may follow many. */
let shared: Buffer | null = null;

/** The time of an interrupt marker line (ms), or null when the line is not one. */
export function interruptAt(line: string): { at: number; forTool: boolean } | null {
  if (!line.includes(MARK)) return null;
  let o: { type?: unknown; timestamp?: unknown; message?: { content?: unknown } };
  try {
    o = JSON.parse(line);
  } catch {
    return null;
  }
  if (o.type !== 'user' || typeof o.timestamp !== 'string') return null;
  const content = o.message?.content;
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content.map((c) => (c as { text?: unknown })?.text)
        : [];
  const text = texts.find((t): t is string => typeof t === 'string' && t.startsWith(MARK));
  const at = Date.parse(o.timestamp);
  if (!text || Number.isNaN(at)) return null;
  return { at, forTool: text.includes('for tool use') };
}

/**
 * End the session's turn for an interrupt at `at`, if that turn is still the one running.
 * Returns whether it did.
 */
export function endInterruptedTurn(db: HasSqlite, sessionId: string, at: number, forTool: boolean): boolean {
  return db.sqlite
    .transaction(() => {
      const row = readTurn(db, sessionId);
      if (!row || (row.status !== 'running' && row.status !== 'waiting')) return false;
      if (row.runStartedAt === null || at < row.runStartedAt) return false;
      endTurnIdle(db, sessionId);
      addEvent(db, {
        projectId: row.projectId,
        klaudeSessionId: sessionId,
        kind: 'claude.interrupted',
        payload: { at, forTool },
      });
      return true;
    })
    .immediate();
}

/** One transcript being read while its session's turn runs. */
class TranscriptTail {
  private fd: number | null = null;
  private watcher: FSWatcher | null = null;
  private decoder = new LineDecoder();
  private offset = 0;

  constructor(
    readonly file: string,
    private readonly onLine: (line: string) => void,
  ) {}

  /**
   * Open and read what is there, then follow. Before claude writes the turn's first line the file
   * may not exist (nor, in a new project, its directory): then the nearest existing directory
   * above it is watched until it appears.
   */
  start(): void {
    if (this.open()) return;
    let dir = path.dirname(this.file);
    while (!existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    try {
      this.watcher = watch(dir, { persistent: false }, () => {
        if (this.fd !== null) return;
        // The file, or a directory on the way to it, appeared: look again from there.
        const deeper =
          path.dirname(this.file) !== dir &&
          existsSync(path.join(dir, path.relative(dir, this.file).split(path.sep)[0]!));
        if (!deeper && !existsSync(this.file)) return;
        this.watcher?.close();
        this.watcher = null;
        this.start();
      });
      this.watcher.on('error', () => this.close());
    } catch {
      this.close();
    }
  }

  private open(): boolean {
    try {
      this.fd = openSync(this.file, 'r');
    } catch {
      return false;
    }
    const size = fstatSync(this.fd).size;
    this.offset = Math.max(0, size - LOOK_BACK);
    // From the middle of a line: its rest is not a line, and is dropped below.
    this.decoder.reset(this.offset);
    let first = this.offset > 0;
    this.read((line) => {
      if (first) first = false;
      else this.onLine(line);
    });
    try {
      this.watcher = watch(this.file, { persistent: false }, () => this.read(this.onLine));
      this.watcher.on('error', () => this.close());
    } catch {
      this.close();
    }
    return true;
  }

  read(each: (line: string) => void): void {
    if (this.fd === null) return;
    const buf = (shared ??= Buffer.allocUnsafe(CHUNK));
    for (;;) {
      let n: number;
      try {
        n = readSync(this.fd, buf, 0, CHUNK, this.offset);
      } catch {
        return;
      }
      if (n <= 0) return;
      this.offset += n;
      // (the decoder copies what it holds of a torn line: the buffer may be reused at once)
      this.decoder.split(buf.subarray(0, n), (l) => each(l.text));
    }
  }

  close(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export interface InterruptWatchOptions {
  db: HasSqlite;
  /** The DB file (its writes say when a turn starts or ends). */
  dbPath: string;
  log?: Logger;
}

/** Follows the transcripts of the sessions this process runs interactively, while their turns run. */
export class InterruptWatch {
  private readonly sessions = new Map<string, TranscriptTail | null>();
  private stopDb: (() => void) | null = null;

  constructor(private readonly o: InterruptWatchOptions) {}

  /** This process now runs `sessionId`'s claude interactively. */
  track(sessionId: string): void {
    if (this.sessions.has(sessionId)) return;
    this.sessions.set(sessionId, null);
    this.stopDb ??= watchDbWrites(
      this.o.dbPath,
      () => this.scan(),
      (err) => this.o.log?.warn('interrupt watch: DB watch failed', { err }),
    );
    this.scan();
  }

  untrack(sessionId: string): void {
    this.sessions.get(sessionId)?.close();
    this.sessions.delete(sessionId);
    if (this.sessions.size === 0) this.close();
  }

  close(): void {
    for (const t of this.sessions.values()) t?.close();
    this.sessions.clear();
    this.stopDb?.();
    this.stopDb = null;
  }

  /** Which transcripts to read: those of sessions in a turn (running or waiting). */
  private scan(): void {
    for (const [id, tail] of this.sessions) {
      let row: TurnRow | undefined;
      try {
        row = readTurn(this.o.db, id);
      } catch (err) {
        this.o.log?.warn('interrupt watch: reading the session failed', { err, sessionId: id });
        continue;
      }
      const inTurn =
        row !== undefined && (row.status === 'running' || row.status === 'waiting') && row.transcriptPath !== null;
      if (tail && (!inTurn || tail.file !== row!.transcriptPath)) {
        tail.close();
        this.sessions.set(id, null);
      }
      if (inTurn && !this.sessions.get(id)) {
        const t = new TranscriptTail(row!.transcriptPath!, (line) => this.onLine(id, line));
        t.start();
        this.sessions.set(id, t);
      }
    }
  }

  private onLine(sessionId: string, line: string): void {
    const hit = interruptAt(line);
    if (!hit) return;
    try {
      if (endInterruptedTurn(this.o.db, sessionId, hit.at, hit.forTool))
        this.o.log?.info('turn interrupted by the person', { sessionId, forTool: hit.forTool });
    } catch (err) {
      this.o.log?.warn('interrupt watch: ending the turn failed', { err, sessionId });
    }
  }
}
