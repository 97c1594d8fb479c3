/**
 * What Tab offers after `klaude …`: the words typed so far → candidates, from the command table
 * (table/registry*.ts: commands, their flags and what each positional and flag value is) and lookups the
 * caller makes on demand (session ids, agent types). Pure; complete.ts does the lookups and prints.
 * The walk mirrors cli/parse-flags.ts: `--` ends flags, a token that cannot be a flag is a positional,
 * `--flag=value` and `-n5` carry their value, a value flag takes the next word.
 */
import type { SessionPick, SessionToComplete } from '../../db/repos/completion.js';
import { shortId } from '../../core/ids.js';
import type { CommandSpec, Completes, FlagSpec } from '../cli/types.js';

export interface Candidate {
  word: string;
  description?: string;
}

export interface Completion {
  candidates: Candidate[];
  /** The shell should complete file names instead. */
  files: boolean;
}

/** Looked up only when the position asks for them. */
export interface Lookups {
  sessions(pick: SessionPick): SessionToComplete[];
  agentTypes(): Candidate[];
  runtimes(): readonly string[];
}

const NONE: Completion = { candidates: [], files: false };
const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const cannotBeFlag = (tok: string): boolean => tok === '-' || /\s/.test(tok);

/** One line of a description, at most `max` characters. */
export function brief(text: string, max = 72): string {
  const line = text.split('\n')[0]!.trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/** `words`: what follows `klaude` up to the cursor; the last is the word being completed (maybe ''). */
export function completeWords(commands: readonly CommandSpec[], words: readonly string[], look: Lookups): Completion {
  const cur = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const root = commands.find((c) => c.name === '');
  if (before.length === 0 && !cur.startsWith('-')) return commandNames(commands, cur);
  const first = before[0] ?? cur;
  if (first === 'help') return before.length === 1 ? commandNames(commands, cur) : NONE;
  const spec = first.startsWith('-') ? root : commands.find((c) => c.name === first && c.name !== '' && !c.plumbing);
  if (!spec) return NONE;
  const args = first.startsWith('-') ? before : before.slice(1);
  const atTop = spec === root && before.length === 0;
  return completeArgs(spec, args, cur, look, atTop);
}

function commandNames(commands: readonly CommandSpec[], cur: string): Completion {
  const people = commands.filter((c) => c.name !== '' && !c.plumbing);
  const all = [
    ...people.map((c) => ({ word: c.name, description: brief(c.summary) })),
    { word: 'help', description: 'help on a command' },
  ];
  return { candidates: all.filter((c) => c.word.startsWith(cur)), files: false };
}

interface Walked {
  /** Positionals before the current word. */
  positionals: number;
  /** Flags already given (by name), to leave out of the offer. */
  used: Set<string>;
  /** The flag whose value the current word is. */
  valueOf: FlagSpec | null;
  /** After `--`: no flags; for `klaude`/`klaude ui`, the rest is claude's. */
  ended: boolean;
}

function flagByLong(spec: CommandSpec, long: string): [string, FlagSpec] | undefined {
  return Object.entries(spec.flags).find(([n]) => kebab(n) === long || n === long);
}

function walk(spec: CommandSpec, args: readonly string[]): Walked {
  const w: Walked = { positionals: 0, used: new Set(), valueOf: null, ended: false };
  for (const tok of args) {
    if (w.valueOf) {
      w.valueOf = null;
      continue;
    }
    if (w.ended || !tok.startsWith('-') || cannotBeFlag(tok)) {
      w.positionals++;
      continue;
    }
    if (tok === '--') {
      w.ended = true;
      continue;
    }
    if (tok.startsWith('--')) {
      const [long, ...value] = tok.slice(2).split('=');
      const f = flagByLong(spec, long!.replace(/^no-/, '')) ?? flagByLong(spec, long!);
      if (f) w.used.add(f[0]);
      if (f && f[1].type !== 'boolean' && value.length === 0) w.valueOf = f[1];
      continue;
    }
    walkShorts(spec, tok.slice(1), w);
  }
  return w;
}

/** `-df`, `-n5`, `-n 5`: letters until one that takes a value (the rest of the token, or the next word). */
function walkShorts(spec: CommandSpec, letters: string, w: Walked): void {
  for (let i = 0; i < letters.length; i++) {
    const f = Object.entries(spec.flags).find(([, s]) => s.shortFlag === letters[i]);
    if (!f) continue;
    w.used.add(f[0]);
    if (f[1].type !== 'boolean') {
      if (i === letters.length - 1) w.valueOf = f[1];
      return;
    }
  }
}

function completeArgs(
  spec: CommandSpec,
  args: readonly string[],
  cur: string,
  look: Lookups,
  atTop: boolean,
): Completion {
  const w = walk(spec, args);
  if (w.valueOf) return values(w.valueOf.completes, cur, '', look);
  if (w.ended && spec.passthrough) return NONE;
  if (!w.ended && cur.startsWith('--') && cur.includes('=')) {
    const long = cur.slice(2, cur.indexOf('='));
    const f = flagByLong(spec, long);
    return f ? values(f[1].completes, cur.slice(cur.indexOf('=') + 1), `--${long}=`, look) : NONE;
  }
  if (!w.ended && cur.startsWith('-')) return flags(spec, w, cur, atTop);
  const operand = operandAt(spec, w.positionals);
  if (operand === undefined) return cur === '' && !w.ended ? flags(spec, w, cur, atTop) : NONE;
  return values(operand, cur, '', look);
}

/** What the n-th positional completes to; undefined past the last one a command takes. */
function operandAt(spec: CommandSpec, n: number): Completes | undefined {
  const ops = spec.operands ?? [];
  if (spec.maxArgs !== undefined && n >= spec.maxArgs) return undefined;
  return ops[n] ?? (spec.maxArgs === undefined ? ops.at(-1) : undefined);
}

function flags(spec: CommandSpec, w: Walked, cur: string, atTop: boolean): Completion {
  const out: Candidate[] = [];
  const withShort = cur === '' || cur === '-' || /^-[^-]$/.test(cur);
  for (const [name, f] of Object.entries(spec.flags)) {
    if (w.used.has(name) && !f.isMultiple) continue;
    const description = brief(f.description);
    out.push({ word: `--${kebab(name)}`, description });
    if (withShort && f.shortFlag) out.push({ word: `-${f.shortFlag}`, description });
  }
  // --help counts only before the first positional (after it, it is text).
  if (w.positionals === 0) out.push({ word: '--help', description: 'show help' });
  if (atTop) out.push({ word: '--version', description: 'print the version' });
  const dashes = cur === '' ? out.filter((c) => c.word.startsWith('--')) : out;
  return { candidates: dashes.filter((c) => c.word.startsWith(cur)), files: false };
}

function values(completes: Completes | undefined, cur: string, prefix: string, look: Lookups): Completion {
  if (completes === undefined || completes === 'text') return NONE;
  if (completes === 'file') return { candidates: [], files: true };
  const plain = (words: readonly Candidate[]): Completion => ({
    candidates: words.filter((c) => c.word.startsWith(cur)).map((c) => ({ ...c, word: prefix + c.word })),
    files: false,
  });
  if (typeof completes !== 'string') return plain(completes.map((word) => ({ word })));
  if (completes === 'runtime') return plain(look.runtimes().map((word) => ({ word })));
  if (completes === 'agent-type') return plain(look.agentTypes());
  const pick: SessionPick =
    completes === 'session:waiting' ? 'waiting' : completes === 'session:active' ? 'active' : 'any';
  return {
    candidates: sessionIds(look.sessions(pick), cur).map((c) => ({ ...c, word: prefix + c.word })),
    files: false,
  };
}

/**
 * Ids as listings show them (the last 8 characters), matched without case as `klaude` matches
 * typed ids; a typed start of the full id gets full ids.
 */
function sessionIds(rows: readonly SessionToComplete[], cur: string): Candidate[] {
  const typed = cur.toUpperCase();
  const describe = (r: SessionToComplete): string => brief(`${r.status} · ${r.type}${r.shown ? ` · ${r.shown}` : ''}`);
  const short = rows.filter((r) => shortId(r.id).startsWith(typed));
  if (short.length > 0 || typed === '') return short.map((r) => ({ word: shortId(r.id), description: describe(r) }));
  return rows.filter((r) => r.id.startsWith(typed)).map((r) => ({ word: r.id, description: describe(r) }));
}
