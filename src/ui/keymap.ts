/**
 * Every dashboard key, declared once. The `?` help overlay and the footer hints are generated
 * from this table (BINDINGS: its parts, one per help group, are in ui/bindings/; the `when`
 * guards in ui/bindings/key-guards.ts); the key router resolves keys through it. A binding's `when` says, for the
 * current context, why the command can't act (null = it can), and that reason is what the
 * person sees when they press the key anyway.
 *
 * Scopes: `tree` and `log` are the two panes, `main` applies to both; each dialog has its own
 * scope, and only the top-most one receives keys.
 */
import type { Group, KeyBinding, KeyContext, Scope } from './key-types.js';
import { DIALOG_KEYS } from './bindings/dialog-keys.js';
import { MOVE_KEYS } from './bindings/move-keys.js';
import { REVIEW_KEYS } from './bindings/review-keys.js';
import { SESSION_KEYS } from './bindings/session-keys.js';
import { APP_KEYS, VIEW_KEYS } from './bindings/view-keys.js';

export type { Group, KeyContext, Scope } from './key-types.js';

/** The table, in declaration order (the help lists each group in this order). */
const BINDINGS = [
  ...MOVE_KEYS,
  ...SESSION_KEYS,
  ...VIEW_KEYS,
  ...REVIEW_KEYS,
  ...APP_KEYS,
  ...DIALOG_KEYS,
] as const satisfies readonly KeyBinding[];

/** Every command a key can run. */
export type CommandId = (typeof BINDINGS)[number]['id'];
/** The commands of one help group (each group's commands are run by one handler, ui/input/). */
export type CommandIn<G extends Group> = Extract<(typeof BINDINGS)[number], { group: G }>['id'];
export type Binding<Id extends string = CommandId> = KeyBinding<Id>;
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
    ' ': 'Space',
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
