/**
 * Semantic colour tokens: components ask for `theme.status.running` or `theme.tone.update`,
 * never for a colour name. `NO_COLOR` (https://no-color.org) gets a theme without colours; it
 * keeps attributes (bold, dim, inverse) and glyphs, so every state stays distinguishable.
 */
import type { SessionStatus } from '../core/status.js';

/** A text style: Ink <Text> props, all optional. */
export interface Style {
  color?: string;
  backgroundColor?: string;
  bold?: boolean;
  dimColor?: boolean;
  inverse?: boolean;
  italic?: boolean;
}

/** Kinds of log-pane and message text. */
export type Tone =
  | 'text'
  | 'user'
  | 'tool'
  | 'result'
  | 'resultError'
  | 'update'
  | 'status'
  | 'error'
  | 'done'
  | 'meta'
  /** The diff view: file headers, hunk headers, added and removed lines. */
  | 'diffFile'
  | 'diffHunk'
  | 'diffAdd'
  | 'diffDel';

export interface Theme {
  name: 'color' | 'no-color';
  status: Record<SessionStatus, Style>;
  tone: Record<Tone, Style>;
  /** Header, borders, focus, selection, notices, keys in hints. */
  ui: {
    title: Style;
    border: string | undefined;
    borderFocused: string | undefined;
    selected: Style;
    selectedUnfocused: Style;
    muted: Style;
    key: Style;
    keyDisabled: Style;
    danger: Style;
    info: Style;
    warn: Style;
    error: Style;
    matched: Style;
    /** A session needs the person (waiting on a permission prompt or a question). */
    attention: Style;
    /** Tags in tree rows ("pty"). */
    tag: Style;
  };
}

/** Status glyphs: distinct shapes, so status reads without colour too. */
export const STATUS_GLYPH: Record<SessionStatus, string> = {
  pending: '◌',
  queued: '⋯',
  running: '●',
  waiting: '◆',
  idle: '○',
  done: '✓',
  failed: '✗',
  interrupted: '⊘',
  cancelled: '⊝',
};

const COLOR: Theme = {
  name: 'color',
  status: {
    pending: { dimColor: true },
    queued: { color: 'blue' },
    running: { color: 'green', bold: true },
    waiting: { color: 'yellow', bold: true },
    idle: { color: 'cyan' },
    done: { color: 'green' },
    failed: { color: 'red', bold: true },
    interrupted: { color: 'magenta' },
    cancelled: { dimColor: true },
  },
  tone: {
    text: {},
    user: { color: 'magenta', bold: true },
    tool: { color: 'cyan' },
    result: { dimColor: true },
    resultError: { color: 'red' },
    update: { color: 'yellow', bold: true },
    status: { dimColor: true, italic: true },
    error: { color: 'red', bold: true },
    done: { color: 'green', bold: true },
    meta: { dimColor: true },
    diffFile: { bold: true, color: 'white' },
    diffHunk: { color: 'cyan' },
    diffAdd: { color: 'green' },
    diffDel: { color: 'red' },
  },
  ui: {
    title: { bold: true, color: 'cyan' },
    border: 'gray',
    borderFocused: 'cyan',
    selected: { inverse: true },
    selectedUnfocused: { bold: true, color: 'cyan' },
    muted: { dimColor: true },
    key: { bold: true, color: 'cyan' },
    keyDisabled: { dimColor: true },
    danger: { color: 'red', bold: true },
    info: { color: 'cyan' },
    warn: { color: 'yellow' },
    error: { color: 'red', bold: true },
    matched: { color: 'yellow', bold: true },
    attention: { color: 'black', backgroundColor: 'yellow', bold: true },
    tag: { color: 'blue', bold: true },
  },
};

const NO_COLOR: Theme = {
  name: 'no-color',
  status: {
    pending: { dimColor: true },
    queued: { dimColor: true },
    running: { bold: true },
    waiting: { bold: true },
    idle: {},
    done: {},
    failed: { bold: true },
    interrupted: {},
    cancelled: { dimColor: true },
  },
  tone: {
    text: {},
    user: { bold: true },
    tool: {},
    result: { dimColor: true },
    resultError: { bold: true },
    update: { bold: true, inverse: true },
    status: { dimColor: true, italic: true },
    error: { bold: true },
    done: { bold: true },
    meta: { dimColor: true },
    // The +/- in front of each line tells added from removed without colour.
    diffFile: { bold: true, inverse: true },
    diffHunk: { dimColor: true },
    diffAdd: {},
    diffDel: {},
  },
  ui: {
    title: { bold: true },
    border: undefined,
    borderFocused: undefined,
    selected: { inverse: true },
    selectedUnfocused: { bold: true },
    muted: { dimColor: true },
    key: { bold: true },
    keyDisabled: { dimColor: true },
    danger: { bold: true },
    info: {},
    warn: { bold: true },
    error: { bold: true },
    matched: { bold: true },
    attention: { inverse: true, bold: true },
    tag: { bold: true },
  },
};

/** `NO_COLOR` set to anything non-empty turns colours off. */
export function themeFor(env: NodeJS.ProcessEnv): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '' ? NO_COLOR : COLOR;
}

export const themes = { color: COLOR, noColor: NO_COLOR } as const;
