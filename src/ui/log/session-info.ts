/** What the log pane shows for a session without log lines: an interactive session, or an agent not started yet. */
import type { LogSnapshot } from '../../feeds/log-feed.js';
import type { SessionView } from '../../feeds/session-tree.js';
import { sanitize } from '../text.js';
import { wrapLogLines, type LogLine } from './event-lines.js';

const clip = (s: string, n: number): string => {
  const t = sanitize(s).replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

export function sessionInfoLines(s: SessionView, log: LogSnapshot, width: number): LogLine[] {
  const out: LogLine[] = [];
  if (s.type === 'tui') {
    out.push({ text: 'interactive claude session', tone: 'meta' });
    const title = s.name || s.title;
    if (title) out.push({ text: `title: ${clip(title, 200)}`, tone: 'text', indent: 7 });
    if (s.nativeSessionId) out.push({ text: `claude session: ${s.nativeSessionId}`, tone: 'meta' });
    if (s.prompt) out.push({ text: `› ${clip(s.prompt, 400)}`, tone: 'user', indent: 2 });
    if (s.lastText) out.push({ text: clip(s.lastText, 600), tone: 'text' });
    out.push({ text: '', tone: 'text' });
    out.push({ text: '⏎ opens it here; the dashboard comes back when claude exits.', tone: 'meta' });
  } else if (!log.loaded) {
    out.push({ text: 'reading the log…', tone: 'meta' });
  } else if (log.error) {
    out.push({ text: log.error, tone: 'error' });
  } else {
    out.push({
      text: log.missing
        ? `no log yet: ${s.status === 'pending' ? 'the agent is starting' : 'nothing written'}`
        : 'the log is empty',
      tone: 'meta',
    });
    if (s.prompt) out.push({ text: `› ${clip(s.prompt, 400)}`, tone: 'user', indent: 2 });
    if (log.file) out.push({ text: log.file, tone: 'meta' });
  }
  return wrapLogLines(out, width);
}
