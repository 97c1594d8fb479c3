/**
 * A session's log, streaming: the server's timeline events (the same as `klaude logs`) folded into
 * items — text deltas grow one item until the whole text replaces them, a tool call and its result
 * are one collapsible item, approvals and `[UPDATE]`s inline — and a search over them.
 */
import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../core/events.js';

export type Item =
  | { k: 'user'; text: string }
  | { k: 'text'; text: string; streaming: boolean }
  | { k: 'thinking'; text: string }
  | { k: 'tool'; id: string; name: string; summary: string; output?: string; isError?: boolean }
  | { k: 'note'; text: string; cls: string };

/** Fold one event into the items (a new array when anything changed). */
export function fold(items: Item[], e: AgentEvent): Item[] {
  const last = items[items.length - 1];
  switch (e.type) {
    case 'user':
      return [...items, { k: 'user', text: e.text }];
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
      return [
        ...items,
        {
          k: 'note',
          text: `${e.behavior}${e.always ? ' always' : ''}${e.by ? ` by ${e.by}` : ''}${e.message ? `: ${e.message}` : ''}`,
          cls: 'answer',
        },
      ];
    case 'error':
      return [...items, { k: 'note', text: e.message, cls: 'error' }];
    case 'retry':
      return [...items, { k: 'note', text: `retry ${e.attempt}: ${e.reason}`, cls: 'retry' }];
    case 'done':
      return [
        ...items,
        { k: 'note', text: `— ${e.status}${e.error ? `: ${e.error}` : ''}`, cls: `done st-${e.status}` },
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

const itemText = (x: Item): string => (x.k === 'tool' ? `${x.name} ${x.summary} ${x.output ?? ''}` : x.text);

/**
 * Follow the session's log over server-sent events. A reconnect (EventSource's own, with the last
 * id it saw) gets only what it missed; what a connection sends before its `history-end` is held and
 * applied at once, so a connection cut mid-history leaves nothing half-applied. `reset` (a full
 * history) replaces what the page had.
 */
export function useSessionLog(id: string): Item[] {
  const [items, setItems] = useState<Item[]>([]);
  useEffect(() => {
    setItems([]);
    let pending: AgentEvent[] = [];
    let frame = 0;
    let staged: AgentEvent[] | null = null;
    let replace = false;
    const flush = (): void => {
      frame = 0;
      const batch = pending;
      pending = [];
      setItems((cur) => batch.reduce(fold, cur));
    };
    const es = new EventSource(`/api/sessions/${id}/log`);
    es.onopen = () => {
      staged = [];
      replace = false;
    };
    es.addEventListener('reset', () => (replace = true));
    es.addEventListener('event', (m) => {
      const e = JSON.parse((m as MessageEvent<string>).data) as AgentEvent;
      if (staged) return void staged.push(e);
      pending.push(e);
      if (!frame) frame = requestAnimationFrame(flush);
    });
    es.addEventListener('history-end', () => {
      const batch = staged ?? [];
      const fresh = replace;
      staged = null;
      setItems((cur) => batch.reduce(fold, fresh ? [] : cur));
    });
    return () => {
      es.close();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [id]);
  return items;
}

export function LogView({ id }: { id: string }) {
  const items = useSessionLog(id);
  const [q, setQ] = useState('');
  const end = useRef<HTMLDivElement>(null);
  const shown = q ? items.filter((x) => itemText(x).toLowerCase().includes(q.toLowerCase())) : items;
  useEffect(() => {
    if (!q) end.current?.scrollIntoView({ block: 'end' });
  }, [items, q]);
  return (
    <div className="log" data-testid="log">
      <input
        className="search"
        type="search"
        placeholder="search the log"
        value={q}
        onChange={(e) => setQ(e.target.value)}
      />
      {shown.map((x, i) => (
        <LogItem key={i} x={x} />
      ))}
      <div ref={end} />
    </div>
  );
}

function LogItem({ x }: { x: Item }) {
  switch (x.k) {
    case 'user':
      return <div className="item user">› {x.text}</div>;
    case 'text':
      return (
        <div className={`item text${x.streaming ? ' streaming' : ''}`} data-testid="log-text">
          {x.text}
        </div>
      );
    case 'thinking':
      return <div className="item thinking">{x.text}</div>;
    case 'tool':
      return (
        <details className={`item tool${x.isError ? ' failed' : ''}`}>
          <summary>
            <b>{x.name}</b> {x.summary}
          </summary>
          <pre>{x.output ?? '…'}</pre>
        </details>
      );
    case 'note':
      return <div className={`item note ${x.cls}`}>{x.text}</div>;
  }
}
