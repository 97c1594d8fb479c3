/**
 * How the supervisor's terminal notices ring. Claude's TUI owns the screen, so a notice is never
 * text: the terminal bell and/or an OSC 9 desktop notification (config `ui.notify`). They hear of
 * the DB changing through db/watch.ts.
 */
import type { NotifyMode } from '../config/schema.js';
import { BEL, osc9 } from '../lib/escapes.js';

/** The bytes of one notice per `ui.notify` ('' for none); the OSC 9 text is cut to 200 characters. */
export function noticeSequence(mode: NotifyMode, text: string): string {
  let seq = '';
  if (mode === 'bell' || mode === 'both') seq += BEL;
  if (mode === 'osc9' || mode === 'both') seq += osc9(text.slice(0, 200));
  return seq;
}
