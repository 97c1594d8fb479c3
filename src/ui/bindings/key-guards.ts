/**
 * The keymap's `when` guards: for the current context, why a command can't act (null = it can).
 * The reason is what the person sees when they press the key anyway.
 */
import { existsSync } from 'node:fs';
import { shortId } from '../../core/ids.js';
import { isActive, isTerminal } from '../../core/status.js';
import { isLive, type SessionView } from '../../feeds/session-tree.js';
import type { KeyContext } from '../key-types.js';

const sid = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;
export const needSelection = (c: KeyContext): string | null =>
  c.selected ? null : 'no session selected (the tree is empty)';

/** A worktree agent whose worktree was pruned: nothing of it can run again. */
function pruned(s: SessionView): string | null {
  if (!s.worktreePath || isLive(s) || existsSync(s.worktreePath)) return null;
  return `${sid(s)}'s worktree was pruned: it can't be opened or talked to again (its branch ${s.worktreeBranch ?? ''} keeps its commits)`;
}

export function canOpen(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (c.foreignProject)
    return `${sid(s)} is in ${c.foreignProject}: this dashboard's claude can't check it out (t talks to it in a PTY)`;
  const gone = pruned(s);
  if (gone) return gone;
  // Any runtime opens: claude resumes a Claude conversation, another agent opens in its own CLI.
  if (!s.nativeSessionId && !isLive(s))
    return `${sid(s)} never started a ${s.runtime === 'claude' ? 'Claude conversation' : `${s.runtime} session`}: there is nothing to open`;
  if (c.selectedProcesses.pty) return `${sid(s)} runs in a PTY session: press t to talk to it`;
  return null;
}

export const needFilter = (c: KeyContext): string | null =>
  c.filterActive ? null : 'no filter is on (/ filters the tree)';
export const needSearch = (c: KeyContext): string | null =>
  c.searchActive ? null : 'no search: / (in the log pane) searches the log';

export function canMessage(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  // A session in a PTY (a talk session) takes a line typed into its prompt.
  if (c.selectedProcesses.pty) return null;
  if (s.type === 'tui') return `${sid(s)} is an interactive session: press Enter to open it and type there`;
  return null;
}

export function canInterrupt(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.type === 'tui') return `${sid(s)} is an interactive session: open it (Enter) and press Esc there`;
  if (!(s.status === 'pending' || isActive(s.status))) return `${sid(s)} is ${s.status}: nothing to interrupt`;
  return null;
}

export function canArchive(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.archivedAt !== null) return null; // unarchive
  const live = c.selectedSubtree.find(isLive);
  if (live && live.type === 'tui') {
    const who = live.id === s.id ? sid(s) : `its session ${sid(live)}`;
    return `${who} is open in claude (${live.status}): archive it once it has ended`;
  }
  if (live) {
    const who = live.id === s.id ? `${sid(s)} is ${s.status}` : `its sub-agent ${sid(live)} is ${live.status}`;
    return `${who}: archiving hides finished sessions only (interrupt it with i, or wait until it is done)`;
  }
  return null;
}

export function canTalk(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  const gone = pruned(s);
  if (gone) return gone;
  const p = c.selectedProcesses;
  if (p.pty) return null; // attach to the running PTY session
  if (p.claude)
    return `${sid(s)} is open in a klaude foreground (claude pid ${p.claude}): talk to it there, or exit that claude first`;
  if (p.runtime) return `${sid(s)} is running headless: wait until its turn ends (or interrupt it with i), then talk`;
  if (!s.nativeSessionId && s.runtime !== 'claude')
    return `${sid(s)} has no ${s.runtime} session yet: there is nothing to talk to`;
  if (!s.nativeSessionId && !isLive(s)) return `${sid(s)} never started a conversation: there is nothing to talk to`;
  return null;
}

export function canShowScreen(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (!c.selectedProcesses.pty)
    return `${sid(s)} is not running in a PTY session: t starts one (its log is on the right)`;
  return null;
}

export function canStopPty(c: KeyContext): string | null {
  if (c.confirming !== 'quit') return 'only when quitting (q)';
  if (c.ptySessions === 0) return 'no PTY sessions are running';
  return null;
}

export function canAnswer(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (!c.selectedApproval) return `${sid(s)} has no pending permission request`;
  return null;
}

export function canDiff(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.type === 'tui') return `${sid(s)} is an interactive session: diffs are kept for agents (klaude start)`;
  return null;
}

export const needReviewPane = (c: KeyContext): string | null =>
  c.reviews ? null : 'the reviews are not shown (R shows those of the selected session)';

export function canSendReview(c: KeyContext): string | null {
  const r = c.reviews;
  if (!r) return needReviewPane(c);
  const cur = r.current;
  if (!cur) return `${shortId(r.originId)} has no review yet (+ starts one)`;
  if (cur.findings !== null) return null;
  if (!isTerminal(cur.status))
    return `the review ${shortId(cur.sessionId)} is still ${cur.status}: its findings come when it ends`;
  return `the review ${shortId(cur.sessionId)} has no findings to send: ${cur.error ?? cur.status}`;
}

export function canStartReview(c: KeyContext): string | null {
  if (!c.reviews) return needReviewPane(c);
  if (c.foreignProject) return `this session is in ${c.foreignProject}: run \`klaude review\` there`;
  return null;
}

export const foldWhen = (c: KeyContext): string | null =>
  c.filterActive ? 'folds are off while a filter is on (Esc in / clears it)' : needSelection(c);
