/**
 * Rendering log events as text for people and for Claude reading its Bash tool's output:
 *
 *   assistant text as is
 *   → Bash: npm test                 one line per tool call, key argument, truncated
 *     ✓ 12 lines                     results folded; errors show their first line
 *     ✗ error: command not found
 *   [UPDATE] tests pass              updates marked
 *   ■ done · 41s · 6 turns · $0.0123
 *
 * Colour only when asked (see `shouldColor`: a TTY without NO_COLOR); plain text otherwise.
 * What the agent, its tools and its CLI wrote is made safe first (lib/escapes.ts `safeText`: no
 * escape sequence or control of theirs reaches the terminal), then klaude adds its own colours.
 */
import { describeRetry, type AgentEvent, type AgentEventType, type EventOf } from '../core/events.js';
import { safeText } from '../lib/escapes.js';
import { imagesNote } from '../core/image.js';

export interface FormatOptions {
  /** ANSI colours (default false). */
  color?: boolean;
  /** Prefix each event with its local time `HH:MM:SS` (config `stream.timestamp`). */
  timestamps?: boolean;
  /** Maximum width of one-line items (tool calls, results, status); default 160. */
  width?: number;
  /** Show prompts and follow-up messages (`> …`); default true. */
  showUser?: boolean;
  /** Show the runtime's start line (`· claude · model · session …`); default true. */
  showInit?: boolean;
  /** The session's short id, put into the approve/deny hint of a permission request. */
  sessionId?: string;
}

/** Where `format` output goes, for picking defaults. */
export interface OutputLike {
  isTTY?: boolean;
  columns?: number;
}

export const DEFAULT_WIDTH = 160;
const MAX_USER_LINES = 6;

/** Colour on a TTY unless NO_COLOR is set (any value); FORCE_COLOR (not "0") forces it on. */
export function shouldColor(out: OutputLike, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return out.isTTY === true && env.TERM !== 'dumb';
}

/** Format options for a stream: colour per `shouldColor`, width = terminal columns (TTY) or 160. */
export function formatOptionsFor(
  out: OutputLike,
  env: NodeJS.ProcessEnv = process.env,
  extra: Omit<FormatOptions, 'color' | 'width'> = {},
): FormatOptions {
  const width = out.isTTY && out.columns && out.columns > 20 ? out.columns : DEFAULT_WIDTH;
  return { ...extra, color: shouldColor(out, env), width };
}

const SURROGATE = /[\ud800-\udfff]/;

/** Cut to `max` characters (code points), ending with `…` when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s; // UTF-16 length ≥ code points: nothing to cut
  // No surrogate among the first `max` units: they are `max` code points and more follow (one
  // native search, not a call per character: `sessions` cuts every row of 1,000 to the terminal).
  if (max >= 2 && !SURROGATE.test(s.slice(0, max))) return `${s.slice(0, max - 1)}…`;
  // Walk code points only as far as needed (`sessions` cuts a few texts per row of 1,000 rows:
  // spreading each into an array of characters was a twentieth of the command).
  let cut = -1; // where the (max-1)th code point ends
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    if (n === max - 1) cut = i;
    if (n === max) return max <= 1 ? '…'.slice(0, max) : `${s.slice(0, cut)}…`;
    i += pairAt(s, i) ? 2 : 1;
  }
  return s;
}

/** A surrogate pair starts at i (one code point in two code units). */
function pairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) return false;
  const d = s.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}

/** First line of `s`, with `…` when more lines follow. */
export function firstLine(s: string): string {
  const t = s.replace(/^\s*\n/, '').trimEnd();
  const nl = t.indexOf('\n');
  return nl === -1 ? t : `${t.slice(0, nl).trimEnd()} …`;
}

export function formatTime(ts: number): string {
  const d = new Date(ts);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)}s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  if (m < 60) return `${m}m${rest ? `${rest}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

export function formatCost(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

// SGR codes; only used when colour is on.
const SGR = {
  dim: ['\x1b[2m', '\x1b[22m'],
  bold: ['\x1b[1m', '\x1b[22m'],
  red: ['\x1b[31m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  magenta: ['\x1b[35m', '\x1b[39m'],
} as const;
type Style = keyof typeof SGR;

const UPDATE_LINE = /^\s*\[UPDATE\]/;

export interface EventFormatter {
  /** The text for one event (possibly several lines, no trailing newline), or null when it shows nothing. */
  format(event: AgentEvent): string | null;
  /** Paint `s` in a style (no-op without colour). */
  paint(style: 'dim' | 'yellow', s: string): string;
  /** The `HH:MM:SS ` stamp for `ts` when timestamps are on, else ''. */
  stamp(ts: number | undefined): string;
}

/**
 * A formatter for one stream of events. It keeps a little state: `update` events that repeat an
 * `[UPDATE]` line of the text just shown are not printed twice.
 */
export class StreamFormatter implements EventFormatter {
  readonly width: number;
  readonly color: boolean;
  /** The `[UPDATE]` texts of the assistant text shown last. */
  shownUpdates = new Set<string>();

  constructor(readonly opts: FormatOptions = {}) {
    this.width = Math.max(20, opts.width ?? DEFAULT_WIDTH);
    this.color = opts.color === true;
  }

  format(e: AgentEvent): string | null {
    // Not shown: usage, deltas (see stream-print.ts), and event types from newer writers. Own keys
    // only, as a foreign line's `type` may be any string, `toString` included.
    if (!Object.hasOwn(RENDERERS, e.type)) return null;
    const render = RENDERERS[e.type] as Renderer<AgentEvent>;
    return render(safeEvent(e), this);
  }

  paint(style: Style, s: string): string {
    return this.color && s ? `${SGR[style][0]}${s}${SGR[style][1]}` : s;
  }

  stamp(ts: number | undefined): string {
    const st = this.plainStamp(ts);
    return st ? this.paint('dim', st) : '';
  }

  private plainStamp(ts: number | undefined): string {
    return this.opts.timestamps && typeof ts === 'number' ? `${formatTime(ts)} ` : '';
  }

  /** A one-line item: prefix + body, cut to the width (the stamp counts). */
  oneLine(ts: number | undefined, style: Style | null, body: string): string {
    const st = this.plainStamp(ts);
    const text = truncate(body.replace(/\s*\n\s*/g, ' ↵ '), Math.max(10, this.width - [...st].length));
    return `${st ? this.paint('dim', st) : ''}${style ? this.paint(style, text) : text}`;
  }

  /** A block (assistant text, prompts): kept as is, the stamp on its first line only. */
  block(ts: number | undefined, lines: string[]): string {
    const st = this.plainStamp(ts);
    const pad = ' '.repeat([...st].length);
    return lines.map((l, i) => (st ? (i === 0 ? this.paint('dim', st) : pad) : '') + l).join('\n');
  }
}

/**
 * The event with every text field made safe to print (the event itself when none needs it). All
 * of them: the text, tool summaries and output, errors, reasons, names — a log line's fields all
 * come from the agent's CLI or what it ran, and a renderer added later is covered too.
 */
export function safeEvent<E extends AgentEvent>(e: E): E {
  if (SAFE_EVENTS.has(e)) return e;
  let copy: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(e)) {
    if (typeof v === 'string') {
      const safe = safeText(v);
      if (safe !== v) (copy ??= { ...e })[k] = safe;
    } else if (Array.isArray(v) && v.some((x) => typeof x === 'string' && safeText(x) !== x)) {
      // (lists of lines: a tool result's `blocked`)
      (copy ??= { ...e })[k] = v.map((x: unknown) => (typeof x === 'string' ? safeText(x) : x));
    }
  }
  const out = (copy ?? e) as E;
  SAFE_EVENTS.add(out);
  return out;
}

/** safeEvent's results: not looked through again (a 32 MiB text costs one scan, not one per caller). */
const SAFE_EVENTS = new WeakSet<AgentEvent>();

/**
 * An event known to need no sanitising, so safeEvent returns it as is without a look: its log
 * line said so (lib/escapes.ts jsonNeedsNoSanitising; the reader asks for long lines).
 */
export function markSafe(e: AgentEvent): void {
  SAFE_EVENTS.add(e);
}

/** A formatter for one stream of events (see StreamFormatter). */
export function createFormatter(opts: FormatOptions = {}): EventFormatter {
  return new StreamFormatter(opts);
}

type Renderer<E extends AgentEvent> = (e: E, f: StreamFormatter) => string | null;

/** How each kind of event shows; kinds not here show nothing. */
const RENDERERS: { [K in AgentEventType]?: Renderer<EventOf<K>> } = {
  init: (e, f) => {
    if (f.opts.showInit === false) return null;
    const parts = [e.runtime, e.model, e.nativeSessionId ? `session ${e.nativeSessionId}` : undefined].filter(Boolean);
    return f.oneLine(e.ts, 'dim', `· ${parts.join(' · ')}`);
  },
  user: (e, f) => {
    if (f.opts.showUser === false) return null;
    const lines = (e.text ?? '').trimEnd().split('\n');
    const shown = lines.slice(0, MAX_USER_LINES).map((l) => truncate(`> ${l}`, f.width));
    if (lines.length > MAX_USER_LINES) shown.push(`> … (${lines.length - MAX_USER_LINES} more lines)`);
    const images = imagesNote(e.images);
    if (images) shown.push(truncate(`> ${images}`, f.width));
    return f.block(
      e.ts,
      shown.map((l) => f.paint('dim', l)),
    );
  },
  text: renderText,
  tool_call: (e, f) => {
    const arg = firstLine(e.summary ?? '');
    return f.oneLine(e.ts, 'cyan', `→ ${e.name}${arg ? `: ${arg}` : ''}`);
  },
  tool_result: renderToolResult,
  update: (e, f) => {
    const text = (e.text ?? '').trim();
    if (f.shownUpdates.delete(text)) return null;
    return f.oneLine(e.ts, 'yellow', `[UPDATE] ${text}`);
  },
  status: (e, f) => {
    if (e.status !== 'waiting' && e.status !== 'failed' && e.status !== 'interrupted') return null;
    if (e.status === 'waiting' && !e.reason) return null; // an approval_request line says why
    return f.oneLine(
      e.ts,
      e.status === 'waiting' ? 'magenta' : 'red',
      `· ${e.status}${e.reason ? `: ${e.reason}` : ''}`,
    );
  },
  error: (e, f) => f.oneLine(e.ts, 'red', `✗ error: ${firstLine(e.message ?? '')}`),
  artifact: (e, f) => f.oneLine(e.ts, 'yellow', `◇ artifact ${e.name}: ${firstLine(e.text ?? '')}`),
  recovered: (e, f) =>
    f.oneLine(
      e.ts,
      'magenta',
      `↻ recovered${e.mode === 'ask' ? ' (needs you: `klaude message` resumes it)' : ''}: ${firstLine(e.cause ?? '')}`,
    ),
  queued: (e, f) =>
    f.oneLine(e.ts, 'dim', `· queued #${e.position}${e.reason ? `: ${e.reason}` : ' (starts when a run slot frees)'}`),
  retry: (e, f) => f.oneLine(e.ts, 'yellow', `↻ ${describeRetry(e)}`),
  approval_request: (e, f) => {
    const what = `${e.tool}${e.summary ? `: ${firstLine(e.summary)}` : ''}`;
    const n = e.approvalId !== undefined ? ` ${e.approvalId}` : '';
    const id = f.opts.sessionId ?? '<id>';
    return f.oneLine(
      e.ts,
      'magenta',
      `? needs approval${n}: ${what} — \`klaude approve ${id}\` [--always] or \`klaude deny ${id}\` [--reason …]`,
    );
  },
  approval_answer: (e, f) =>
    f.oneLine(e.ts, e.behavior === 'allow' ? 'green' : e.behavior === 'deny' ? 'red' : 'dim', approvalAnswerText(e)),
  done: renderDone,
};

function renderText(e: EventOf<'text'>, f: StreamFormatter): string | null {
  const text = (e.text ?? '').replace(/^\n+/, '').trimEnd();
  if (text === '') return null;
  f.shownUpdates = new Set();
  // The common case as is: no line to mark, no stamp (a 32 MiB text costs no split/join).
  if (!text.includes('[UPDATE]') && !f.opts.timestamps) return text;
  const lines = text.split('\n').map((l) => {
    if (!UPDATE_LINE.test(l)) return l;
    f.shownUpdates.add(l.replace(UPDATE_LINE, '').trim());
    return f.paint('yellow', f.paint('bold', l));
  });
  return f.block(e.ts, lines);
}

function renderToolResult(e: EventOf<'tool_result'>, f: StreamFormatter): string {
  const out = (e.output ?? '').trimEnd();
  if (e.blocked?.length) {
    const more = e.blocked.length > 1 ? ` (+${e.blocked.length - 1} more)` : '';
    return f.oneLine(e.ts, 'yellow', `  ⊘ blocked by the sandbox: ${e.blocked[0]}${more}`);
  }
  if (e.isError) {
    const first =
      out
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.trim() ?? '';
    return f.oneLine(e.ts, 'red', `  ✗ error${first ? `: ${first}` : ''}`);
  }
  const n = out === '' ? 0 : out.split('\n').length;
  return f.oneLine(e.ts, 'dim', `  ✓ ${n === 0 ? 'no output' : n === 1 ? '1 line' : `${n} lines`}`);
}

function renderDone(e: EventOf<'done'>, f: StreamFormatter): string {
  const parts: string[] = [e.status];
  if (typeof e.durationMs === 'number') parts.push(formatDuration(e.durationMs));
  if (typeof e.numTurns === 'number') parts.push(`${e.numTurns} turn${e.numTurns === 1 ? '' : 's'}`);
  if (typeof e.costUsd === 'number') parts.push(formatCost(e.costUsd));
  let line = `■ ${parts.join(' · ')}`;
  if (e.status !== 'done' && e.error) line += `: ${firstLine(e.error)}`;
  return f.oneLine(e.ts, e.status === 'done' ? 'green' : 'red', line);
}

/** `allowed always by person`, `denied by parent: use node`, `request cancelled: the turn ended`. */
export function approvalAnswerText(e: { behavior: string; always?: boolean; by?: string; message?: string }): string {
  const by = e.by && e.by !== 'runtime' ? ` by ${e.by}` : '';
  if (e.behavior === 'allow') return `✓ allowed${e.always ? ' always' : ''}${by}`;
  if (e.behavior === 'deny') return `✗ denied${by}${e.message ? `: ${firstLine(e.message)}` : ''}`;
  return `· request withdrawn${e.message ? `: ${firstLine(e.message)}` : ''}`;
}

/** One event, no state (tests, one-offs). */
export function formatEvent(event: AgentEvent, opts: FormatOptions = {}): string | null {
  return createFormatter(opts).format(event);
}

/** Format many events into text, one item per line, with a trailing newline (empty string when none show). */
export function formatEvents(events: Iterable<AgentEvent>, opts: FormatOptions = {}): string {
  const f = createFormatter(opts);
  let out = '';
  for (const e of events) {
    const s = f.format(e);
    if (s !== null) out += `${s}\n`;
  }
  return out;
}
