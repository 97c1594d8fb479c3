/**
 * Every dashboard key, declared once. The `?` help overlay and the footer hints are generated
 * from this table; the key router resolves keys through it. A binding's `when` says, for the
 * current context, why the command can't act (null = it can), and that reason is what the
 * person sees when they press the key anyway.
 *
 * Scopes: `tree` and `log` are the two panes, `main` applies to both; each dialog has its own
 * scope, and only the top-most one receives keys.
 */
import { shortId } from '../core/ids.js';
import { isActive } from '../core/status.js';
import type { ApprovalRow } from '../db/repos/approvals.js';
import type { LiveProcesses } from '../db/repos/listing.js';
import type { SessionView } from '../feeds/session-tree.js';
import { isLive } from '../feeds/session-tree.js';
import type { ConfirmIntent } from './state/ui-state.js';

export type Scope = 'main' | 'tree' | 'log' | 'help' | 'confirm' | 'picker' | 'input';
export type Group = 'Move' | 'Sessions' | 'View' | 'App' | 'Dialogs';

export interface KeyContext {
  selected: SessionView | null;
  /** The selected session and its descendants (for archive). */
  selectedSubtree: readonly SessionView[];
  filterActive: boolean;
  /** A log search is set (n/N move between its matches). */
  searchActive: boolean;
  /** One pane at a time (narrow terminal). */
  narrow: boolean;
  /** Agents running/waiting/pending: what quitting warns about. */
  runningAgents: number;
  /** The selected session's live processes (PTY host, foreground claude, headless runtime). */
  selectedProcesses: LiveProcesses;
  /** PTY sessions of the project running now (they outlive the dashboard). */
  ptySessions: number;
  /** The open confirm dialog's kind, if one is open. */
  confirming: ConfirmIntent['kind'] | null;
  /** The selected agent's oldest pending permission request (it is `waiting` on it). */
  selectedApproval?: ApprovalRow | null;
}

export interface Binding<Id extends string = CommandId> {
  /** A command id (`CommandId`, the union of every id below): a renamed or mistyped id fails tsc. */
  id: Id;
  /** Key names as `keyName()` produces them: 'j', 'up', 'enter', 'ctrl+c', 'shift+tab', '?'. */
  keys: readonly string[];
  scope: Scope;
  group: Group;
  /** Short label for the footer. */
  label: string;
  /** One line for the help overlay. */
  description: string;
  /** Changes or stops something: asks first, shown in the danger colour. */
  dangerous?: boolean;
  /** Left out of the footer while `when` says it can't act (a key that only exists in one case). */
  hideWhenOff?: boolean;
  /** Footer position (lower first); absent = help overlay only. */
  footer?: number;
  /** Why it can't act now; null when it can. */
  when?: (c: KeyContext) => string | null;
}

const sid = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;
const needSelection = (c: KeyContext): string | null => (c.selected ? null : 'no session selected (the tree is empty)');

function canOpen(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  // Any runtime opens: claude resumes a Claude conversation, another agent opens in its own CLI.
  if (!s.nativeSessionId && !isLive(s))
    return `${sid(s)} never started a ${s.runtime === 'claude' ? 'Claude conversation' : `${s.runtime} session`}: there is nothing to open`;
  if (c.selectedProcesses.pty) return `${sid(s)} runs in a PTY session: press t to talk to it`;
  return null;
}

const needFilter = (c: KeyContext): string | null => (c.filterActive ? null : 'no filter is on (/ filters the tree)');
const needSearch = (c: KeyContext): string | null =>
  c.searchActive ? null : 'no search: / (in the log pane) searches the log';

function canMessage(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.type === 'tui') return `${sid(s)} is an interactive session: press Enter to open it and type there`;
  return null;
}

function canInterrupt(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.type === 'tui') return `${sid(s)} is an interactive session: open it (Enter) and press Esc there`;
  if (!(s.status === 'pending' || isActive(s.status))) return `${sid(s)} is ${s.status}: nothing to interrupt`;
  return null;
}

function canArchive(c: KeyContext): string | null {
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

function canTalk(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
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

function canShowScreen(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (!c.selectedProcesses.pty)
    return `${sid(s)} is not running in a PTY session: t starts one (its log is on the right)`;
  return null;
}

function canStopPty(c: KeyContext): string | null {
  if (c.confirming !== 'quit') return 'only when quitting (q)';
  if (c.ptySessions === 0) return 'no PTY sessions are running';
  return null;
}

function canAnswer(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (!c.selectedApproval) return `${sid(s)} has no pending permission request`;
  return null;
}

function canDiff(c: KeyContext): string | null {
  const s = c.selected;
  if (!s) return needSelection(c);
  if (s.type === 'tui') return `${sid(s)} is an interactive session: diffs are kept for agents (klaude start)`;
  return null;
}

const foldWhen = (c: KeyContext): string | null =>
  c.filterActive ? 'folds are off while a filter is on (Esc in / clears it)' : needSelection(c);

const BINDINGS = [
  // Move
  {
    id: 'tree.up',
    keys: ['up', 'k'],
    scope: 'tree',
    group: 'Move',
    label: 'up',
    description: 'select the previous session',
  },
  {
    id: 'tree.down',
    keys: ['down', 'j'],
    scope: 'tree',
    group: 'Move',
    label: 'down',
    description: 'select the next session',
    footer: 1,
  },
  {
    id: 'tree.fold',
    keys: ['left', 'h'],
    scope: 'tree',
    group: 'Move',
    label: 'fold',
    description: 'fold the sub-agents, or go to the parent',
    when: foldWhen,
  },
  {
    id: 'tree.unfold',
    keys: ['right', 'l'],
    scope: 'tree',
    group: 'Move',
    label: 'unfold',
    description: 'unfold the sub-agents, or go to the first one',
    when: foldWhen,
  },
  {
    id: 'tree.first',
    keys: ['home', 'g'],
    scope: 'tree',
    group: 'Move',
    label: 'first',
    description: 'select the first session',
  },
  {
    id: 'tree.last',
    keys: ['end', 'G'],
    scope: 'tree',
    group: 'Move',
    label: 'last',
    description: 'select the last session',
  },
  {
    id: 'log.up',
    keys: ['up', 'k'],
    scope: 'log',
    group: 'Move',
    label: 'scroll',
    description: 'scroll the log up a line (stops following)',
    footer: 1,
  },
  {
    id: 'log.down',
    keys: ['down', 'j'],
    scope: 'log',
    group: 'Move',
    label: 'down',
    description: 'scroll the log down a line',
  },
  {
    id: 'log.top',
    keys: ['home', 'g'],
    scope: 'log',
    group: 'Move',
    label: 'top',
    description: 'go to the start of the log',
  },
  {
    id: 'log.bottom',
    keys: ['end', 'G'],
    scope: 'log',
    group: 'Move',
    label: 'end',
    description: 'go to the end of the log and follow it',
  },
  {
    id: 'log.pageUp',
    keys: ['pageup', 'ctrl+b'],
    scope: 'main',
    group: 'Move',
    label: 'PgUp',
    description: 'scroll the log up a page (stops following)',
  },
  {
    id: 'log.pageDown',
    keys: ['pagedown', 'ctrl+f'],
    scope: 'main',
    group: 'Move',
    label: 'PgDn',
    description: 'scroll the log down a page',
  },
  {
    id: 'pane.switch',
    keys: ['tab', 'shift+tab'],
    scope: 'main',
    group: 'Move',
    label: 'pane',
    description: 'switch between the tree and the log',
    footer: 2,
  },

  // Sessions
  {
    id: 'session.open',
    keys: ['enter'],
    scope: 'tree',
    group: 'Sessions',
    label: 'open',
    description:
      "open the session's conversation in its CLI: claude, or a codex/gemini/… agent's own (the dashboard returns when it exits)",
    footer: 3,
    when: canOpen,
  },
  {
    id: 'session.talk',
    keys: ['t'],
    scope: 'main',
    group: 'Sessions',
    label: 'talk',
    description:
      'talk to the session in a PTY that keeps running after you detach (Ctrl-] detaches and comes back here; starts one if none runs)',
    footer: 8.5,
    when: canTalk,
  },
  {
    id: 'session.new',
    keys: ['n'],
    scope: 'tree',
    group: 'Sessions',
    label: 'new',
    description: 'start a new interactive claude session',
    footer: 4,
  },
  {
    id: 'agent.start',
    keys: ['s'],
    scope: 'main',
    group: 'Sessions',
    label: 'start',
    description: 'start an agent (type, then prompt) under the selected session',
    footer: 5,
  },
  {
    id: 'agent.message',
    keys: ['m'],
    scope: 'main',
    group: 'Sessions',
    label: 'message',
    description: 'send the selected agent a message',
    footer: 6,
    when: canMessage,
  },
  {
    id: 'agent.interrupt',
    keys: ['i'],
    scope: 'main',
    group: 'Sessions',
    label: 'interrupt',
    description: 'interrupt the selected agent',
    dangerous: true,
    footer: 7,
    when: canInterrupt,
  },
  {
    id: 'approval.allow',
    keys: ['A'],
    scope: 'main',
    group: 'Sessions',
    label: 'allow',
    description: "allow the selected agent's pending permission request, once",
    when: canAnswer,
  },
  {
    id: 'approval.always',
    keys: ['W'],
    scope: 'main',
    group: 'Sessions',
    label: 'allow always',
    description:
      'allow it and write the suggested rule to .claude/settings.local.json, so it is not asked again (asks first)',
    when: canAnswer,
  },
  {
    id: 'approval.deny',
    keys: ['D'],
    scope: 'main',
    group: 'Sessions',
    label: 'deny',
    description: 'deny the pending permission request, with an optional reason the agent is shown',
    dangerous: true,
    when: canAnswer,
  },
  {
    id: 'session.archive',
    keys: ['d'],
    scope: 'main',
    group: 'Sessions',
    label: 'archive',
    description:
      'archive the selected finished session and its sub-agents, or bring an archived one back (nothing is stopped or deleted)',
    footer: 8,
    when: canArchive,
  },

  {
    id: 'session.copyId',
    keys: ['y'],
    scope: 'main',
    group: 'Sessions',
    label: 'copy id',
    description: "copy the selected session's id to the clipboard (OSC 52: the terminal, tmux or ssh must pass it on)",
    when: needSelection,
  },

  // View
  {
    id: 'view.filter',
    keys: ['/'],
    scope: 'tree',
    group: 'View',
    label: 'filter',
    description: 'filter the tree by type, id, status, runtime or title',
    footer: 9,
  },
  {
    id: 'view.clearFilter',
    keys: ['escape'],
    scope: 'main',
    group: 'View',
    label: 'clear filter',
    description: 'clear the filter',
    footer: 9.5,
    hideWhenOff: true,
    when: needFilter,
  },
  {
    id: 'log.search',
    keys: ['/'],
    scope: 'log',
    group: 'View',
    label: 'search',
    description: 'search the log (Enter jumps to the first match below)',
    footer: 9,
  },
  {
    id: 'log.searchNext',
    keys: ['n'],
    scope: 'log',
    group: 'View',
    label: 'next',
    description: 'next match of the log search',
    footer: 9.1,
    hideWhenOff: true,
    when: needSearch,
  },
  {
    id: 'log.searchPrev',
    keys: ['N'],
    scope: 'log',
    group: 'View',
    label: 'previous',
    description: 'previous match of the log search',
    footer: 9.2,
    hideWhenOff: true,
    when: needSearch,
  },
  {
    id: 'view.follow',
    keys: ['f'],
    scope: 'main',
    group: 'View',
    label: 'follow',
    description: 'follow the end of the log on/off',
    footer: 10,
  },
  {
    id: 'view.screen',
    keys: ['v'],
    scope: 'main',
    group: 'View',
    label: 'screen',
    description: 'for a PTY session: its live terminal screen / its log',
    when: canShowScreen,
  },
  {
    id: 'view.diff',
    keys: ['c'],
    scope: 'main',
    group: 'View',
    label: 'diff',
    description:
      'show what the selected agent changed (its worktree branch with uncommitted work; in the shared tree: the files it touched, approximate) in the right pane; again: back to its log',
    footer: 9.5,
    when: canDiff,
  },
  {
    id: 'view.expand',
    keys: ['e'],
    scope: 'main',
    group: 'View',
    label: 'results',
    description: 'show tool results in full / folded',
  },
  {
    id: 'view.archived',
    keys: ['a'],
    scope: 'main',
    group: 'View',
    label: 'archived',
    description: 'show archived sessions too / hide them',
  },
  {
    id: 'view.redraw',
    keys: ['ctrl+l'],
    scope: 'main',
    group: 'View',
    label: 'redraw',
    description: 'redraw the screen',
  },
  {
    id: 'app.suspend',
    keys: ['ctrl+z'],
    scope: 'main',
    group: 'App',
    label: 'suspend',
    description: 'suspend to the shell (fg brings the dashboard back)',
  },
  { id: 'app.help', keys: ['?'], scope: 'main', group: 'App', label: 'help', description: 'show all keys', footer: 11 },
  {
    id: 'app.quit',
    keys: ['q', 'ctrl+c'],
    scope: 'main',
    group: 'App',
    label: 'quit',
    description:
      'quit the dashboard (agents and PTY sessions keep running: they are their own processes, still attachable and resumable; asks first while some run, and offers to stop the PTY sessions)',
    footer: 12,
  },

  // Dialogs
  {
    id: 'help.close',
    keys: ['escape', '?', 'q'],
    scope: 'help',
    group: 'Dialogs',
    label: 'close',
    description: 'close this help',
    footer: 1,
  },
  { id: 'help.up', keys: ['up', 'k'], scope: 'help', group: 'Dialogs', label: 'up', description: 'scroll the help up' },
  {
    id: 'help.down',
    keys: ['down', 'j'],
    scope: 'help',
    group: 'Dialogs',
    label: 'scroll',
    description: 'scroll the help down',
    footer: 2,
  },
  {
    id: 'confirm.yes',
    keys: ['y'],
    scope: 'confirm',
    group: 'Dialogs',
    label: 'yes',
    description: 'confirm (Ctrl-C also confirms quitting)',
    footer: 1,
  },
  {
    id: 'confirm.no',
    keys: ['n', 'escape', 'enter'],
    scope: 'confirm',
    group: 'Dialogs',
    label: 'no',
    description: 'cancel',
    footer: 2,
  },
  {
    id: 'confirm.stopPty',
    keys: ['x'],
    scope: 'confirm',
    group: 'Dialogs',
    label: 'stop PTY sessions',
    description:
      'when quitting: stop the PTY sessions too (the PTY server ends each CLI; their conversations stay resumable)',
    dangerous: true,
    footer: 3,
    hideWhenOff: true,
    when: canStopPty,
  },
  {
    id: 'picker.up',
    keys: ['up', 'k'],
    scope: 'picker',
    group: 'Dialogs',
    label: 'up',
    description: 'previous agent type',
  },
  {
    id: 'picker.down',
    keys: ['down', 'j'],
    scope: 'picker',
    group: 'Dialogs',
    label: 'choose',
    description: 'next agent type',
    footer: 1,
  },
  {
    id: 'picker.pick',
    keys: ['enter', 'tab'],
    scope: 'picker',
    group: 'Dialogs',
    label: 'next',
    description: 'use this agent type and write the prompt',
    footer: 2,
  },
  {
    id: 'picker.cancel',
    keys: ['escape', 'ctrl+c'],
    scope: 'picker',
    group: 'Dialogs',
    label: 'cancel',
    description: 'close without starting',
    footer: 3,
  },
  {
    id: 'input.submit',
    keys: ['enter'],
    scope: 'input',
    group: 'Dialogs',
    label: 'send',
    description: 'send / apply what you typed',
    footer: 1,
  },
  {
    id: 'input.cancel',
    keys: ['escape', 'ctrl+c'],
    scope: 'input',
    group: 'Dialogs',
    label: 'cancel',
    description: 'cancel (in the filter: clear it)',
    footer: 2,
  },
  {
    id: 'input.back',
    keys: ['shift+tab'],
    scope: 'input',
    group: 'Dialogs',
    label: 'back',
    description: 'back to the agent type (start dialog)',
  },
  {
    id: 'input.backspace',
    keys: ['backspace', 'delete'],
    scope: 'input',
    group: 'Dialogs',
    label: 'erase',
    description: 'delete the last character',
  },
  {
    id: 'input.deleteWord',
    keys: ['ctrl+w'],
    scope: 'input',
    group: 'Dialogs',
    label: 'word',
    description: 'delete the last word',
  },
  {
    id: 'input.clear',
    keys: ['ctrl+u'],
    scope: 'input',
    group: 'Dialogs',
    label: 'clear',
    description: 'clear the line',
  },
] as const satisfies readonly Binding<string>[];

/** Every command a key can run. */
export type CommandId = (typeof BINDINGS)[number]['id'];
export const KEYMAP: readonly Binding[] = BINDINGS;

/** The scopes whose bindings apply in `scope` (a pane sees its own and the main ones). */
export function scopeChain(scope: Scope): Scope[] {
  return scope === 'tree' || scope === 'log' ? [scope, 'main'] : [scope];
}

export function bindingFor(key: string, scope: Scope, keymap: readonly Binding[] = KEYMAP): Binding | undefined {
  for (const s of scopeChain(scope)) {
    const b = keymap.find((x) => x.scope === s && x.keys.includes(key));
    if (b) return b;
  }
  return undefined;
}

export function bindingById(id: CommandId, keymap: readonly Binding[] = KEYMAP): Binding {
  const b = keymap.find((x) => x.id === id);
  if (!b) throw new Error(`no binding ${id}`);
  return b;
}

export function disabledReason(b: Binding, c: KeyContext): string | null {
  return b.when ? b.when(c) : null;
}

/** How a key is written in hints and help: 'enter' → '⏎', 'ctrl+c' → 'C-c'. */
export function displayKey(k: string): string {
  const named: Record<string, string> = {
    up: '↑',
    down: '↓',
    left: '←',
    right: '→',
    enter: '⏎',
    escape: 'Esc',
    tab: 'Tab',
    'shift+tab': 'S-Tab',
    pageup: 'PgUp',
    pagedown: 'PgDn',
    home: 'Home',
    end: 'End',
    backspace: '⌫',
    delete: 'Del',
  };
  if (named[k]) return named[k]!;
  if (k.startsWith('ctrl+')) return `C-${k.slice(5)}`;
  return k;
}

/** Footer hints for a scope, in footer order. */
export function footerBindings(scope: Scope, keymap: readonly Binding[] = KEYMAP): Binding[] {
  return scopeChain(scope)
    .flatMap((s) => keymap.filter((b) => b.scope === s && b.footer !== undefined))
    .sort((a, b) => a.footer! - b.footer!);
}

/** Bindings grouped for the help overlay, in declaration order. */
export function helpGroups(keymap: readonly Binding[] = KEYMAP): { group: Group; bindings: Binding[] }[] {
  const order: Group[] = ['Move', 'Sessions', 'View', 'App', 'Dialogs'];
  return order
    .map((group) => ({ group, bindings: keymap.filter((b) => b.group === group) }))
    .filter((g) => g.bindings.length > 0);
}
