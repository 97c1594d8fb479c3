/**
 * Search in a session's log, as the dashboard's `/` with n/N: every match marked where it is (the
 * log stays whole around it), a count, next/previous (Enter, Shift+Enter), and "no matches".
 */
import { Fragment, useEffect, useState, type ReactNode, type RefObject } from 'react';

/** How many times `q` occurs in `text`, line by line as it is marked (case-insensitive; an empty query: none). */
export function countIn(text: string, q: string): number {
  if (!q) return 0;
  const n = q.toLowerCase();
  let count = 0;
  for (const line of text.toLowerCase().split('\n'))
    for (let i = line.indexOf(n); i !== -1; i = line.indexOf(n, i + n.length)) count++;
  return count;
}

/** One line with each occurrence of `q` in a <mark>. */
function markLine(line: string, q: string): ReactNode[] {
  const lower = line.toLowerCase();
  const out: ReactNode[] = [];
  let at = 0;
  for (let i = lower.indexOf(q); i !== -1; i = lower.indexOf(q, at)) {
    out.push(<Fragment key={`t${i}`}>{line.slice(at, i)}</Fragment>);
    out.push(<mark key={`m${i}`}>{line.slice(i, i + q.length)}</mark>);
    at = i + q.length;
  }
  out.push(<Fragment key="end">{line.slice(at)}</Fragment>);
  return out;
}

/** `text` while searching: line by line, the lines with a match marked, each occurrence in a <mark>. */
export function Marked({ text, q, inline }: { text: string; q: string; inline?: boolean }): ReactNode {
  if (!q) return text;
  const n = q.toLowerCase();
  if (inline) return markLine(text, n);
  return text.split('\n').map((line, i) =>
    line.toLowerCase().includes(n) ? (
      <span key={i} className="line hit">
        {markLine(line, n)}
      </span>
    ) : (
      <span key={i} className="line">
        {line || ' '}
      </span>
    ),
  );
}

/**
 * The search field with its count and arrows. `scroller` holds the marks: the current one is
 * scrolled to the middle and outlined.
 */
export function LogSearch(props: {
  q: string;
  setQ: (q: string) => void;
  total: number;
  scroller: RefObject<HTMLDivElement | null>;
}) {
  const { q, setQ, total, scroller } = props;
  const [cur, setCur] = useState(0);
  useEffect(() => setCur(0), [q]);
  const at = total === 0 ? 0 : Math.min(cur, total - 1);
  useEffect(() => {
    const marks = scroller.current?.querySelectorAll('mark') ?? [];
    marks.forEach((m, i) => m.classList.toggle('current', i === at));
    marks[at]?.scrollIntoView({ block: 'center' });
  }, [at, q, total, scroller]);
  const step = (d: number): void => setCur(total === 0 ? 0 : (at + d + total) % total);
  return (
    <div className="log-search" role="search">
      <input
        className="search"
        type="search"
        placeholder="search the log"
        aria-label="search the log"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          step(e.shiftKey ? -1 : 1);
        }}
        data-testid="log-search"
      />
      {q ? (
        <>
          <span className={`count${total === 0 ? ' none' : ''}`} data-testid="log-search-count" aria-live="polite">
            {total === 0 ? 'no matches' : `${at + 1} of ${total}`}
          </span>
          <button type="button" disabled={total < 2} onClick={() => step(-1)} aria-label="previous match">
            ↑
          </button>
          <button type="button" disabled={total < 2} onClick={() => step(1)} aria-label="next match">
            ↓
          </button>
        </>
      ) : null}
    </div>
  );
}
