/**
 * The pending permission request of the selected agent, as lines pinned above its log: what it
 * wants to run (the command; for an edit, the diff; for a new file, its first lines), why it asks,
 * and the keys that answer. Pure.
 */
import type { ApprovalRow } from '../../db/repos/approvals.js';
import { sanitize } from '../text.js';
import { wrapLogLines, type LogLine } from './event-lines.js';

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string => (typeof x === 'string' ? x : '');

/** `- old` / `+ new` lines of one replacement. */
function diff(oldText: string, newText: string): LogLine[] {
  const out: LogLine[] = [];
  for (const l of sanitize(oldText).split('\n')) out.push({ text: `  - ${l}`, tone: 'resultError', indent: 4 });
  for (const l of sanitize(newText).split('\n')) out.push({ text: `  + ${l}`, tone: 'done', indent: 4 });
  return out;
}

/** The body: what the tool call would do. */
function body(a: ApprovalRow): LogLine[] {
  const input = isObj(a.input) ? a.input : {};
  if (a.toolName === 'Bash' && str(input.command)) {
    return sanitize(str(input.command))
      .split('\n')
      .map((l, i) => ({ text: `  ${i === 0 ? '$' : ' '} ${l}`, tone: 'tool', indent: 4 }));
  }
  if ((a.toolName === 'Edit' || a.toolName === 'MultiEdit') && str(input.file_path)) {
    const edits = Array.isArray(input.edits) ? input.edits.filter(isObj) : [input];
    return [
      { text: `  ${str(input.file_path)}`, tone: 'tool' },
      ...edits.flatMap((e) => diff(str(e.old_string), str(e.new_string))),
    ];
  }
  if (a.toolName === 'Write' && str(input.file_path)) {
    const lines = sanitize(str(input.content)).split('\n');
    return [
      { text: `  ${str(input.file_path)} (new content, ${lines.length} lines)`, tone: 'tool' },
      ...lines.map((l): LogLine => ({ text: `  + ${l}`, tone: 'done', indent: 4 })),
    ];
  }
  return [{ text: `  ${a.summary || JSON.stringify(a.input)}`, tone: 'tool', indent: 4 }];
}

/** At most `maxRows` wrapped lines; the key line always shows. */
export function approvalLines(a: ApprovalRow, pending: number, width: number, maxRows: number): LogLine[] {
  const head: LogLine = {
    text: `? needs approval · request ${a.id}${pending > 1 ? ` (1 of ${pending})` : ''} · ${a.toolName}`,
    tone: 'status',
  };
  const keys: LogLine = {
    text: `A allow once · W allow always${a.suggestedRule ? ` (${a.suggestedRule})` : ''} · D deny`,
    tone: 'update',
    indent: 2,
  };
  const reason: LogLine[] = a.reason ? [{ text: `  ${sanitize(a.reason)}`, tone: 'meta', indent: 2 }] : [];
  const fixed = wrapLogLines([head], width).concat(wrapLogLines(reason, width));
  const tail = wrapLogLines([keys], width);
  const room = Math.max(1, maxRows - fixed.length - tail.length - 1);
  let what = wrapLogLines(body(a), width);
  if (what.length > room)
    what = [...what.slice(0, room - 1), { text: `  … ${what.length - room + 1} more lines`, tone: 'meta' }];
  return [...fixed, ...what, ...tail, { text: '─'.repeat(Math.max(1, width)), tone: 'meta' }];
}
