/**
 * From a keypress (Ink's `input` + `Key`) to what it means in the current scope. Pure: the
 * one input hook (use-key-router.ts) calls this and then runs the command.
 */
import type { Key } from 'ink';
import {
  bindingFor,
  disabledReason,
  displayKey,
  KEYMAP,
  scopeChain,
  type Binding,
  type KeyContext,
  type Scope,
} from '../keymap.js';

const CONTROL_NAMES: Record<string, string> = {
  '\r': 'enter',
  '\n': 'enter',
  '\t': 'tab',
  '\x7f': 'backspace',
  '\b': 'backspace',
  '\x1b': 'escape',
};

/** The key a control character stands for (null for printable text). */
function controlName(ch: string): string | null {
  return CONTROL_NAMES[ch] ?? (ch < ' ' ? `ctrl+${String.fromCharCode(ch.charCodeAt(0) + 96)}` : null);
}

/** Ink's key event → a key name used in the keymap; null for text (paste) and unknown keys. */
export function keyName(input: string, key: Partial<Key>): string | null {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.tab) return key.shift ? 'shift+tab' : 'tab';
  if (key.backspace) return 'backspace';
  if (key.delete) return 'delete';
  if (key.escape) return 'escape';
  if (key.ctrl && input.length === 1) return `ctrl+${input.toLowerCase()}`;
  if (key.meta) return null;
  // Enter as LF (a terminal with ICRNL, pasted text), Tab, Backspace, Esc and Ctrl-letters as raw bytes.
  const control = input.length === 1 ? controlName(input) : null;
  if (control) return control;
  if ([...input].length === 1) return input;
  return null;
}

export interface KeyPress {
  name: string | null;
  input: string;
}

/**
 * One Ink input event → the keys in it. Ink hands over a run of plain characters as one string
 * (fast typing, a paste, or keys a terminal sends together): in a text field that is text (split
 * at Enter), elsewhere each character is its own key.
 */
export function splitKeys(input: string, key: Partial<Key>, textScope: boolean): KeyPress[] {
  const name = keyName(input, key);
  if (name !== null || [...input].length <= 1) return [{ name, input }];
  const out: KeyPress[] = [];
  let text = '';
  const flush = (): void => {
    if (text) out.push({ name: null, input: text });
    text = '';
  };
  for (const ch of input) {
    const control = controlName(ch);
    if (control) {
      flush();
      out.push({ name: control, input: '' });
    } else if (textScope) {
      text += ch;
    } else {
      out.push({ name: ch, input: ch });
    }
  }
  flush();
  return out;
}

export type Resolution =
  | { kind: 'command'; binding: Binding }
  /** Text typed into the active input. */
  | { kind: 'text'; text: string }
  /** A bound key that can't act now, and why. */
  | { kind: 'disabled'; binding: Binding; reason: string }
  /** A key with no meaning here, and what to do instead. */
  | { kind: 'unbound'; reason: string }
  | { kind: 'ignore' };

const isPrintable = (s: string): boolean => s !== '' && !/[\x00-\x1f\x7f]/.test(s);

export function resolveKey(
  name: string | null,
  input: string,
  scope: Scope,
  ctx: KeyContext,
  keymap: readonly Binding[] = KEYMAP,
): Resolution {
  if (name !== null) {
    const b = bindingFor(name, scope, keymap);
    if (b) {
      const reason = disabledReason(b, ctx);
      return reason ? { kind: 'disabled', binding: b, reason } : { kind: 'command', binding: b };
    }
  }
  if (scope === 'input') {
    // Typed or pasted text (a paste arrives as one string); newlines in a paste become spaces.
    const text = input.replace(/\r\n?|\n/g, ' ');
    return isPrintable(text) ? { kind: 'text', text } : { kind: 'ignore' };
  }
  if (name === null) return { kind: 'ignore' };
  return { kind: 'unbound', reason: unboundReason(name, scope, keymap) };
}

function unboundReason(name: string, scope: Scope, keymap: readonly Binding[]): string {
  const k = displayKey(name);
  const here = scopeChain(scope);
  const elsewhere = keymap.find((b) => b.keys.includes(name) && !here.includes(b.scope));
  if (elsewhere && (elsewhere.scope === 'tree' || elsewhere.scope === 'log')) {
    return `${k} (${elsewhere.label}) works in the ${elsewhere.scope} pane: Tab switches panes`;
  }
  if (scope === 'help') return `${k} does nothing here: Esc closes the help`;
  if (scope === 'confirm') return `${k}: answer y or n`;
  if (scope === 'picker') return `${k}: choose a type with ↑/↓ and press ⏎ (Esc cancels)`;
  return `${k} is not a key here: ? lists the keys`;
}
