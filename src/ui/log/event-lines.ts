/**
 * Session-log events → the lines the log pane shows (before wrapping), each with a tone.
 * Assistant text as is, one line per tool call with its key argument, results folded to a
 * line (or shown in full), `[UPDATE]` lines highlighted. Pure.
 */
import { describeRetry, extractUpdates, type AgentEvent } from '../../core/events.js';
import { approvalAnswerText } from '../../logs/format.js';
import { sanitize, wrapText } from '../text.js';
import type { Tone } from '../theme.js';
import { imagesNote } from '../../core/image.js';

export interface LogLine {
  text: string;
  tone: Tone;
  /** Continuation lines of a wrapped line are indented by this many cells. */
  indent?: number;
}

export interface FormatOptions {
  /** Show tool results in full instead of one folded line. */
  expandResults: boolean;
}

const MAX_EXPANDED_RESULT_LINES = 200;

const oneLine = (s: string): string =>
  sanitize(s)
    .replace(/\s*\n\s*/g, ' ⏎ ')
    .trim();

function textLines(text: string): LogLine[] {
  return sanitize(text)
    .split('\n')
    .map((line) => ({ text: line, tone: /^\s*\[UPDATE\]/.test(line) ? 'update' : 'text' }) as LogLine);
}

function fmtDuration(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)}s` : `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

/** Where a user turn came from, as a prefix (none for what the person typed). */
function sourceTag(source: Extract<AgentEvent, { type: 'user' }>['source']): string {
  return source === 'message'
    ? '(message) '
    : source === 'share'
      ? '(shared) '
      : source === 'onStop'
        ? '(on stop) '
        : source === 'recover'
          ? '(resume) '
          : '';
}

function userLines(e: Extract<AgentEvent, { type: 'user' }>): LogLine[] {
  const tag = sourceTag(e.source);
  const [first = '', ...rest] = sanitize(e.text).split('\n');
  const images = imagesNote(e.images);
  return [
    { text: `› ${tag}${first}`, tone: 'user', indent: 2 },
    ...rest.map((l): LogLine => ({ text: `  ${l}`, tone: 'user', indent: 2 })),
    ...(images ? [{ text: `  ${images}`, tone: 'user' as const, indent: 2 }] : []),
  ];
}

/** A tool result folded to one line, or in full (up to MAX_EXPANDED_RESULT_LINES). */
function resultLines(e: Extract<AgentEvent, { type: 'tool_result' }>, opts: FormatOptions): LogLine[] {
  const body = sanitize(e.output).replace(/\n+$/, '');
  const lines = body === '' ? [] : body.split('\n');
  if (e.blocked?.length) {
    const more = e.blocked.length > 1 ? ` (+${e.blocked.length - 1} more)` : '';
    return [{ text: `  ⊘ blocked by the sandbox: ${sanitize(e.blocked[0]!)}${more}`, tone: 'resultError', indent: 4 }];
  }
  const tone: Tone = e.isError ? 'resultError' : 'result';
  const mark = e.isError ? '✗' : '✓';
  if (!opts.expandResults || lines.length <= 1) {
    const first = lines[0]?.trim() ?? '';
    const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
    return [{ text: `  ${mark} ${first === '' ? '(no output)' : first}${more}`, tone, indent: 4 }];
  }
  const shown = lines.slice(0, MAX_EXPANDED_RESULT_LINES).map((l) => ({ text: `    ${l}`, tone, indent: 4 }));
  const cut = lines.length - shown.length;
  return [
    { text: `  ${mark} ${lines.length} lines`, tone },
    ...shown,
    ...(cut > 0 ? [{ text: `    … ${cut} more lines`, tone }] : []),
  ];
}

/** The end of a turn: status, duration, turns, cost, then its error and the files it wrote. */
function doneLines(e: Extract<AgentEvent, { type: 'done' }>): LogLine[] {
  const bits = [
    e.status,
    e.durationMs !== undefined ? fmtDuration(e.durationMs) : '',
    e.numTurns !== undefined ? `${e.numTurns} turn${e.numTurns === 1 ? '' : 's'}` : '',
    e.costUsd !== undefined ? `$${e.costUsd.toFixed(4)}` : '',
  ].filter(Boolean);
  const lines: LogLine[] = [{ text: `■ ${bits.join(' · ')}`, tone: e.status === 'done' ? 'done' : 'error' }];
  if (e.error) lines.push({ text: `   ${oneLine(e.error)}`, tone: 'error', indent: 3 });
  const files = [
    ...(e.filesEdited ?? []).map((f) => `edited ${f}`),
    ...(e.filesCreated ?? []).map((f) => `created ${f}`),
  ];
  for (const f of files) lines.push({ text: `   ${f}`, tone: 'meta', indent: 3 });
  return lines;
}

export function eventLines(e: AgentEvent, opts: FormatOptions): LogLine[] {
  switch (e.type) {
    case 'init':
      return [{ text: `── ${e.runtime} session ${e.nativeSessionId}${e.model ? ` · ${e.model}` : ''}`, tone: 'meta' }];
    case 'user':
      return userLines(e);
    case 'text':
      return textLines(e.text);
    case 'text_delta': {
      // Still being written: the whole text replaces it when the message ends.
      const lines = textLines(e.text.replace(/^\n+/, ''));
      const last = lines[lines.length - 1]!;
      lines[lines.length - 1] = { ...last, text: `${last.text}▍` };
      return lines;
    }
    case 'thinking_delta': {
      const [first = '', ...rest] = sanitize(e.text.replace(/^\n+/, '')).split('\n');
      return [
        { text: `∴ ${first}`, tone: 'meta', indent: 2 },
        ...rest.map((l): LogLine => ({ text: `  ${l}`, tone: 'meta', indent: 2 })),
      ];
    }
    case 'retry':
      return [{ text: `↻ ${oneLine(describeRetry(e))}`, tone: 'error', indent: 2 }];
    case 'tool_call':
      return [{ text: `→ ${e.name}${e.summary ? `: ${oneLine(e.summary)}` : ''}`, tone: 'tool', indent: 2 }];
    case 'tool_result':
      return resultLines(e, opts);
    case 'usage':
      return [];
    case 'update':
      return [{ text: `[UPDATE] ${oneLine(e.text)}`, tone: 'update', indent: 9 }];
    case 'status':
      // Every run begins `running`: its prompt below and the row's glyph say so already.
      if (e.status === 'running' && !e.reason) return [];
      return [{ text: `· ${e.status}${e.reason ? ` (${oneLine(e.reason)})` : ''}`, tone: 'status' }];
    case 'error':
      return [{ text: `✗ ${oneLine(e.message)}`, tone: 'error', indent: 2 }];
    case 'approval_request':
      return [
        {
          text: `? needs approval${e.approvalId !== undefined ? ` ${e.approvalId}` : ''}: ${e.tool}${e.summary ? `: ${oneLine(e.summary)}` : ''}`,
          tone: 'status',
          indent: 2,
        },
      ];
    case 'approval_answer':
      return [{ text: `  ${approvalAnswerText(e)}`, tone: e.behavior === 'deny' ? 'error' : 'status', indent: 4 }];
    case 'artifact':
      return [{ text: `◇ artifact ${e.name}: ${oneLine(e.text)}`, tone: 'update', indent: 4 }];
    case 'recovered':
      return [{ text: `↻ recovered${e.mode === 'ask' ? ' — needs you' : ''}: ${oneLine(e.cause)}`, tone: 'status' }];
    case 'queued':
      return [{ text: `· queued #${e.position}${e.reason ? ` (${oneLine(e.reason)})` : ''}`, tone: 'status' }];
    case 'done':
      return doneLines(e);
    default:
      return [];
  }
}

/** Logical lines wrapped to `width` cells (continuations indented). */
export function wrapLogLines(lines: readonly LogLine[], width: number): LogLine[] {
  const out: LogLine[] = [];
  for (const l of lines) {
    const indent = Math.min(l.indent ?? 0, Math.max(0, width - 10));
    const parts = wrapText(l.text, width);
    if (parts.length === 1 || indent === 0) {
      for (const p of parts) out.push({ text: p, tone: l.tone });
      continue;
    }
    out.push({ text: parts[0]!, tone: l.tone });
    const rest = wrapText(parts.slice(1).join(' '), width - indent);
    for (const p of rest) out.push({ text: ' '.repeat(indent) + p, tone: l.tone });
  }
  return out;
}

/**
 * The wrapped lines of a whole log, cached per event and width so a streaming log re-wraps
 * only what is new.
 */
export class LogLayout {
  private cache = new WeakMap<AgentEvent, { key: string; lines: LogLine[] }>();

  lines(events: readonly AgentEvent[], width: number, opts: FormatOptions, from = 0): LogLine[] {
    const out: LogLine[] = [];
    // An `update` event repeats an [UPDATE] line of the text just before it: show it once.
    let shownUpdates = new Set<string>();
    for (let i = from; i < events.length; i++) {
      const e = events[i]!;
      if (e.type === 'text') shownUpdates = new Set(extractUpdates(e.text));
      else if (e.type === 'update' && shownUpdates.delete(e.text.trim())) continue;
      for (const l of this.of(e, width, opts)) out.push(l);
    }
    return out;
  }

  /**
   * The last `n` of `lines(events, …)` (all of them when there are fewer), laying out only the
   * events near the end: what a pane following the log shows, however long the log is.
   */
  tail(
    events: readonly AgentEvent[],
    width: number,
    opts: FormatOptions,
    n: number,
  ): { lines: LogLine[]; fromStart: boolean } {
    let want = n;
    for (;;) {
      let from = events.length;
      for (let count = 0; from > 0 && count < want;) count += this.of(events[--from]!, width, opts).length;
      // Start at a text event, so the updates it repeats are left out as in lines().
      while (from > 0 && events[from]!.type !== 'text') from--;
      const lines = this.lines(events, width, opts, from);
      if (lines.length >= n || from === 0) return { lines: lines.slice(-n), fromStart: from === 0 };
      want *= 2;
    }
  }

  private of(e: AgentEvent, width: number, opts: FormatOptions): LogLine[] {
    const key = `${width}:${opts.expandResults ? 1 : 0}`;
    let hit = this.cache.get(e);
    if (!hit || hit.key !== key) {
      hit = { key, lines: wrapLogLines(eventLines(e, opts), width) };
      this.cache.set(e, hit);
    }
    return hit.lines;
  }
}
