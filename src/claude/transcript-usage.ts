/**
 * Token usage recorded in Claude Code transcripts (`message.usage` of assistant entries), for
 * interactive sessions, whose turns never pass through a klaude runtime. Claude writes one entry
 * per content block of a reply, each repeating the reply's usage: counted once per message id.
 * Transcripts hold tokens, not cost (Claude keeps cost only in its own session totals).
 * Kept small and separate from transcript following: it only sums.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../lib/sha256.js';

export interface TranscriptUsage {
  /** input + cache read + cache creation tokens. */
  tokensIn: number;
  tokensOut: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The usage object and message id of an assistant entry, without parsing the whole line (replies
 * can be long; the Stop hook reads the whole transcript): `"usage":{…}` cannot occur unescaped in
 * message text, so the first one is the entry's.
 */
function assistantUsage(line: string): { id: string | null; usage: Record<string, unknown> } | null {
  // (A user entry's tool result may carry a usage object of its own, e.g. the Task tool's.)
  if (!line.includes('"type":"assistant"') || line.includes('"toolUseResult"')) return null;
  const at = line.indexOf('"usage":{');
  if (at === -1) return null;
  const open = at + 8;
  let depth = 0;
  let end = -1;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      // Skip a string (usage holds a few, e.g. "service_tier":"standard").
      for (i++; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      end = i + 1;
      break;
    }
  }
  if (end === -1) return null; // a line being written
  try {
    const usage = JSON.parse(line.slice(open, end)) as Record<string, unknown>;
    return { id: /"id":"([^"\\]+)"/.exec(line)?.[1] ?? null, usage };
  } catch {
    return null;
  }
}

/** Per transcript: how far it has been read, and the sums so far. */
interface Progress {
  offset: number;
  tokensIn: number;
  tokensOut: number;
  /** The last message ids counted (a reply's blocks are consecutive entries). */
  recent: string[];
}

const RECENT_IDS = 64;

/** Count the complete lines of `file` from `p.offset` on into `p`. */
function advance(file: string, p: Progress): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return; // not written yet, or removed
  }
  try {
    const size = fstatSync(fd).size;
    if (size < p.offset) Object.assign(p, { offset: 0, tokensIn: 0, tokensOut: 0, recent: [] }); // rewritten
    if (size === p.offset) return;
    const buf = Buffer.allocUnsafe(size - p.offset);
    const n = readSync(fd, buf, 0, buf.length, p.offset);
    const end = buf.lastIndexOf(0x0a, n - 1);
    if (end === -1) return; // no complete line yet
    const seen = new Set(p.recent);
    for (const line of buf.toString('utf8', 0, end).split('\n')) {
      const u = assistantUsage(line);
      if (!u) continue;
      if (u.id) {
        if (seen.has(u.id)) continue;
        seen.add(u.id);
        p.recent.push(u.id);
      }
      p.tokensIn +=
        num(u.usage.input_tokens) + num(u.usage.cache_read_input_tokens) + num(u.usage.cache_creation_input_tokens);
      p.tokensOut += num(u.usage.output_tokens);
    }
    p.recent = p.recent.slice(-RECENT_IDS);
    p.offset += end + 1;
  } finally {
    closeSync(fd);
  }
}

/**
 * The summed usage of these transcripts. With `cacheDir`, each transcript's progress is kept there
 * (`<sha1 of its path>.json`), so a turn's end reads only what was appended since the last one.
 */
export function transcriptUsage(files: Iterable<string>, cacheDir?: string): TranscriptUsage {
  const total = { tokensIn: 0, tokensOut: 0 };
  for (const file of new Set(files)) {
    const cache = cacheDir ? path.join(cacheDir, `${sha256Hex(file).slice(0, 40)}.json`) : null;
    let p: Progress = { offset: 0, tokensIn: 0, tokensOut: 0, recent: [] };
    if (cache) {
      try {
        p = { ...p, ...(JSON.parse(readFileSync(cache, 'utf8')) as Progress) };
      } catch {
        /* first read */
      }
    }
    const before = p.offset;
    advance(file, p);
    total.tokensIn += p.tokensIn;
    total.tokensOut += p.tokensOut;
    if (cache && p.offset !== before) {
      try {
        mkdirSync(cacheDir!, { recursive: true, mode: 0o700 });
        const tmp = `${cache}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(p), { mode: 0o600 });
        renameSync(tmp, cache);
      } catch {
        /* the next turn reads from the start again */
      }
    }
  }
  return total;
}

/** Entries Claude writes around a turn that say nothing about whether its reply is written. */
const BOOKKEEPING = new Set([
  'queue-operation',
  'attachment',
  'file-history-snapshot',
  'last-prompt',
  'ai-title',
  'mode',
  'permission-mode',
]);

/**
 * Whether the turn's reply is in the transcript yet: the last entry that is not bookkeeping is an
 * assistant (or system) entry, not the user's prompt. Claude may write its transcript a moment after
 * the Stop hook starts; the hook waits for this (bounded) so the turn's usage is counted now, not a
 * turn late. Reads at most the last 256 KiB; anything it cannot tell counts as written.
 */
export function replyWritten(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return true;
  }
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, 256 * 1024);
    const buf = Buffer.allocUnsafe(len);
    const n = readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8', 0, n).split('\n');
    if (len < size) lines.shift(); // a cut first line
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      let type: unknown;
      try {
        type = (JSON.parse(line) as { type?: unknown }).type;
      } catch {
        return i !== lines.length - 1; // a half-written last line: not yet; anything else: can't tell
      }
      if (typeof type === 'string' && BOOKKEEPING.has(type)) continue;
      return type !== 'user';
    }
    // Only bookkeeping (Claude writes the turn's entries a moment later): not yet. A file that big
    // with no turn in its tail is something else: don't wait on it.
    return len < size;
  } finally {
    closeSync(fd);
  }
}
