/**
 * The server's timeline events (the same as `klaude logs`) folded into the page's log items: text
 * deltas grow one item until the whole text replaces them, a tool call and its result are one
 * item, approvals and `[UPDATE]`s inline, in words for the person reading the page.
 */
import type { AgentEvent } from '../../core/events.js';
import { imagesNote } from '../../core/image.js';

type UserSource = Extract<AgentEvent, { type: 'user' }>['source'];

export type Item =
  | { k: 'user'; text: string; source?: UserSource }
  | { k: 'text'; text: string; streaming: boolean }
  | { k: 'thinking'; text: string }
  | { k: 'tool'; id: string; name: string; summary: string; output?: string; isError?: boolean }
  | { k: 'note'; text: string; cls: string };

/** Who answered, as the person reads it: they are "you"; the runtime's own answers name nobody. */
function answeredBy(by: string | undefined): string {
  if (!by || by === 'runtime') return '';
  if (by === 'timeout') return ' (timed out)';
  if (by === 'parent') return ' by its parent';
  return ` by ${by.replace(/^person\b/, 'you')}`;
}

function answerText(e: Extract<AgentEvent, { type: 'approval_answer' }>): string {
  const by = answeredBy(e.by);
  const why = e.message ? `: ${e.message}` : '';
  if (e.behavior === 'allow') return `allowed${e.always ? ' always' : ''}${by}`;
  if (e.behavior === 'deny') return `denied${by}${why}`;
  return `request withdrawn${why}`;
}

/** Fold one event into the items (a new array when anything changed). */
export function fold(items: Item[], e: AgentEvent): Item[] {
  const last = items[items.length - 1];
  switch (e.type) {
    case 'user': {
      const images = imagesNote(e.images);
      const text = images ? `${e.text}${e.text ? '\n' : ''}${images}` : e.text;
      return [...items, { k: 'user', text, ...(e.source ? { source: e.source } : {}) }];
    }
    case 'text_delta':
      if (last?.k === 'text' && last.streaming) return [...items.slice(0, -1), { ...last, text: last.text + e.text }];
      return [...items, { k: 'text', text: e.text, streaming: true }];
    case 'text':
      if (last?.k === 'text' && last.streaming)
        return [...items.slice(0, -1), { k: 'text', text: e.text, streaming: false }];
      return [...items, { k: 'text', text: e.text, streaming: false }];
    case 'thinking_delta':
      if (last?.k === 'thinking') return [...items.slice(0, -1), { k: 'thinking', text: last.text + e.text }];
      return [...items, { k: 'thinking', text: e.text }];
    case 'tool_call':
      return [...items, { k: 'tool', id: e.id, name: e.name, summary: e.summary }];
    case 'tool_result': {
      const i = items.findLastIndex((x) => x.k === 'tool' && x.id === e.id);
      if (i === -1) return items;
      const next = items.slice();
      next[i] = { ...(items[i] as Extract<Item, { k: 'tool' }>), output: e.output, isError: e.isError };
      if (e.blocked?.length)
        next.splice(i + 1, 0, { k: 'note', text: `blocked by the sandbox: ${e.blocked.join('; ')}`, cls: 'error' });
      return next;
    }
    case 'update':
      return [...items, { k: 'note', text: `[UPDATE] ${e.text}`, cls: 'update' }];
    case 'approval_request':
      return [
        ...items,
        { k: 'note', text: `asks: ${e.tool} ${e.summary}${e.rule ? ` (always: ${e.rule})` : ''}`, cls: 'ask' },
      ];
    case 'approval_answer':
      return [...items, { k: 'note', text: answerText(e), cls: e.behavior === 'deny' ? 'answer denied' : 'answer' }];
    case 'error':
      return [...items, { k: 'note', text: e.message, cls: 'error' }];
    case 'retry':
      return [...items, { k: 'note', text: `retry ${e.attempt}: ${e.reason}`, cls: 'retry' }];
    case 'done':
      // Not the dots' `st-*` classes: those paint a background, and the marker is text to read.
      return [
        ...items,
        { k: 'note', text: `— ${e.status}${e.error ? `: ${e.error}` : ''}`, cls: `done end-${e.status}` },
      ];
    case 'status':
      return e.status === 'waiting' || e.status === 'interrupted'
        ? [...items, { k: 'note', text: e.status, cls: 'status' }]
        : items;
    case 'recovered':
      return [...items, { k: 'note', text: `recovered (${e.cause})`, cls: 'status' }];
    case 'queued':
      return [...items, { k: 'note', text: `queued (#${e.position})`, cls: 'status' }];
    case 'artifact':
      return [...items, { k: 'note', text: `${e.name}: ${e.text}`, cls: 'artifact' }];
    case 'init':
    case 'usage':
      return items;
  }
}
