/** A unified diff → log-pane lines with a tone per kind of line (file header, hunk, +, -). Pure. */
import { sanitize } from '../text.js';
import type { LogLine } from './event-lines.js';

export function diffLines(heading: string, patch: string): LogLine[] {
  const out: LogLine[] = [{ text: heading, tone: 'meta' }];
  if (patch.trim() === '') {
    out.push({ text: 'no changes', tone: 'meta' });
    return out;
  }
  for (const raw of patch.replace(/\n$/, '').split('\n')) {
    const line = sanitize(raw);
    if (line.startsWith('diff --git ')) {
      out.push({ text: '', tone: 'text' });
      const m = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      out.push({ text: `▌ ${m ? m[2] : line.slice(11)}`, tone: 'diffFile' });
    } else if (/^(index |--- |\+\+\+ |similarity |rename |old mode|new mode)/.test(line)) {
      continue; // the file header line above says it
    } else if (/^(new file|deleted file|Binary files)/.test(line)) {
      out.push({ text: line, tone: 'meta' });
    } else if (line.startsWith('@@')) {
      out.push({ text: line, tone: 'diffHunk' });
    } else if (line.startsWith('+')) {
      out.push({ text: line, tone: 'diffAdd' });
    } else if (line.startsWith('-')) {
      out.push({ text: line, tone: 'diffDel' });
    } else {
      out.push({ text: line, tone: 'text' });
    }
  }
  return out;
}
