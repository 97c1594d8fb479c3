/** What the session pane says after an action, from what the server returned (the CLI's sentences). */
import type { MergeOutcome } from '../../git/merge.js';
import type { Delivery } from '../../agent-ops/message.js';
import type { WebSession } from '../hub.js';
import { short, typeName } from './display.js';

const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;

/** A message's fate; `pending` when the agent gets it only once its current turn ends. */
export function deliveryWords(d: Delivery, s: WebSession): { text: string; pending: boolean } {
  if (d.delivered === 'stdin') return { text: 'queued: it gets this when its current turn ends', pending: true };
  if (d.delivered === 'queued')
    return s.status === 'queued'
      ? { text: 'queued: it gets this with its start, once its turn in the queue comes', pending: false }
      : { text: 'queued: it gets this when its current turn ends (klaude resumes it with it)', pending: true };
  if (d.delivered === 'recovering')
    return { text: 'it had crashed mid-turn: klaude is resuming it, and your message goes with it', pending: false };
  return {
    text: `sent: resumed ${short(s.id)} (it had ${d.previousStatus ?? 'stopped'}) with your message`,
    pending: false,
  };
}

export function mergeWords(r: MergeOutcome): string {
  const into = r.into ?? 'the detached HEAD';
  const first = r.committedWork ? 'committed its uncommitted work first; ' : '';
  if (r.result === 'up-to-date') return `${first}already merged: ${r.branch} has nothing ${into} lacks`;
  const list = r.files.slice(0, 5).join(', ') + (r.files.length > 5 ? ', …' : '');
  return `${first}merged ${r.branch} into ${into} (${files(r.files.length)}${list ? `: ${list}` : ''})`;
}

/** After an interrupt: the messages it had not got yet come back (into the message box). */
export function interruptWords(s: WebSession, dropped: readonly string[]): string {
  if (s.status === 'queued') return 'cancelled: it left the queue and will not start';
  if (dropped.length === 0) return 'interrupted';
  return `interrupted; ${dropped.length === 1 ? 'the message it had not got yet is' : `${dropped.length} messages it had not got yet are`} back in the box`;
}

export function interruptConfirm(s: WebSession, pending: number): string {
  const who = `${typeName(s)} ${short(s.id)}`;
  if (s.status === 'queued') return `Cancel ${who}? It leaves the queue and never starts.`;
  const lost =
    pending > 0
      ? `\n\nThe message you sent it is still queued for the end of this turn: it will not be sent (it comes back into the box).`
      : '';
  return `Interrupt ${who}?${lost}`;
}

/** Before archiving a worktree agent whose branch still has changes (the diff endpoint's count). */
export function archiveConfirm(s: WebSession, changed: number): string {
  return `${typeName(s)} ${short(s.id)}'s branch ${s.worktreeBranch ?? ''} has changes in ${files(changed)}. Archive it anyway?\n\nMerge it first to bring them into your branch.`;
}

/** After an archive: what it kept of the worktrees, and why (the server's sentence). */
export function archiveWords(restore: boolean, r: { note: string | null } | null): string {
  if (restore) return 'restored';
  return r?.note ? `archived; ${r.note}` : 'archived';
}

export { files as fileCount };
