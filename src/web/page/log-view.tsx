/**
 * A session's log, streaming (items: log-fold.ts), in its own scrolling area under a search bar,
 * so the session's actions above it stay in reach however long the log grows.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../core/events.js';
import { fold, type Item } from './log-fold.js';
import { countIn, LogSearch, Marked } from './log-search.js';

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

/** Near enough to the end to keep following what arrives. */
const FOLLOW_PX = 48;

/**
 * `pending`: messages the page sent that the agent gets when its turn ends; each shows at the end
 * until the log has it as a turn of its own.
 */
export function LogView({ id, pending = [] }: { id: string; pending?: readonly string[] }) {
  const items = useSessionLog(id);
  const [q, setQ] = useState('');
  const scroller = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const waiting = pending.filter((p) => !items.some((x) => x.k === 'user' && x.text.includes(p)));
  const total = q ? items.reduce((n, x) => n + countItem(x, q), 0) : 0;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && !q && follow.current) el.scrollTop = el.scrollHeight;
  }, [items, q, waiting.length]);
  return (
    <div className="log" data-testid="log">
      <LogSearch q={q} setQ={setQ} total={total} scroller={scroller} />
      <div
        className="log-scroll"
        ref={scroller}
        tabIndex={0}
        aria-label="log"
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_PX;
        }}
      >
        {items.map((x, i) => (
          <LogItem key={i} x={x} q={q} />
        ))}
        {waiting.map((p, i) => (
          <div key={`p${i}`} className="item user pending" data-testid="log-pending">
            › {p}
            <span className="muted"> — queued: it gets this when its turn ends</span>
          </div>
        ))}
      </div>
    </div>
  );
}

/** Where a turn came from, when not the person: klaude's own prompts are not shown as theirs. */
const SOURCE: Partial<Record<NonNullable<Extract<Item, { k: 'user' }>['source']>, string>> = {
  share: 'shared with it',
  onStop: "klaude's on-stop prompt",
};

/** Matches in an item, counted as LogItem marks them (a tool's name, summary and output apart). */
const countItem = (x: Item, q: string): number =>
  x.k === 'tool' ? countIn(x.name, q) + countIn(x.summary, q) + countIn(x.output ?? '', q) : countIn(x.text, q);

function LogItem({ x, q }: { x: Item; q: string }) {
  const hit = q !== '' && countItem(x, q) > 0;
  const cls = hit ? ' hit' : '';
  switch (x.k) {
    case 'user':
      if (x.source === 'recover')
        return (
          <details className={`item resume${cls}`} open={hit || undefined}>
            <summary>↻ klaude resumed it after its run stopped mid-turn</summary>
            <pre>
              <Marked text={x.text} q={q} />
            </pre>
          </details>
        );
      return (
        <div className={`item user${cls}`}>
          {x.source && SOURCE[x.source] ? <span className="muted">{SOURCE[x.source]}: </span> : '› '}
          <Marked text={x.text} q={q} />
        </div>
      );
    case 'text':
      return (
        <div className={`item text${x.streaming ? ' streaming' : ''}${cls}`} data-testid="log-text">
          <Marked text={x.text} q={q} />
        </div>
      );
    case 'thinking':
      return (
        <div className={`item thinking${cls}`}>
          <Marked text={x.text} q={q} />
        </div>
      );
    case 'tool':
      return (
        <details className={`item tool${x.isError ? ' failed' : ''}${cls}`} open={hit || undefined}>
          <summary>
            <b>
              <Marked text={x.name} q={q} inline />
            </b>{' '}
            <Marked text={x.summary} q={q} inline />
          </summary>
          <pre>{x.output === undefined ? '…' : <Marked text={x.output} q={q} />}</pre>
        </details>
      );
    case 'note':
      return (
        <div className={`item note ${x.cls}${cls}`}>
          <Marked text={x.text} q={q} />
        </div>
      );
  }
}
