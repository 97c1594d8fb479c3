/**
 * A command's arguments, parsed by node's `util.parseArgs` in strict mode (meow's import alone cost
 * ≈15–30 ms per command). The rules people and Claude rely on:
 * - `--` ends flags: everything after it is a positional (for `klaude` and `klaude ui`, whose
 *   positionals are claude's arguments, everything after it goes to claude);
 * - a token that cannot be a flag is a positional even if it starts with `-`: `-` alone, or one
 *   containing whitespace (`klaude start general "- list item"`: prompts are written like that);
 * - `--help`/`-h` counts only before the first positional (`start general "-h"` is a prompt);
 * - unknown flags are one-line errors with a did-you-mean.
 * Also: camelCase spellings (`--resumeLast`), `--no-<boolean>`, numbers converted (NaN left for
 * the caller to report), defaults applied, `isMultiple` collected into arrays.
 */
import { parseArgs } from 'node:util';
import { KlaudeError } from '../../lib/errors.js';
import { closestName } from './argv.js';
import type { CommandSpec, Flags } from './types.js';

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export interface ParsedFlags {
  flags: Flags;
  input: string[];
}

export interface ParsedCommandLine extends ParsedFlags {
  help: boolean;
  /** After `--`, for commands that pass arguments on (`klaude`, `klaude ui`); else empty. */
  passthrough: string[];
}

/** A token that can't be a flag: `-` alone, or text with whitespace in it. */
const cannotBeFlag = (tok: string): boolean => tok === '-' || /\s/.test(tok);

export function parseCommandLine(spec: CommandSpec, argv: readonly string[]): ParsedCommandLine {
  const dd = spec.passthrough ? argv.indexOf('--') : -1;
  const own = dd === -1 ? argv : argv.slice(0, dd);
  const passthrough = dd === -1 ? [] : argv.slice(dd + 1);
  return { ...parse(spec, own), passthrough };
}

/** Flags and positionals of `argv` (no help handling: `--help` is an unknown flag here). */
export function parseFlags(spec: CommandSpec, argv: readonly string[]): ParsedFlags {
  const { flags, input } = parse(spec, argv, false);
  return { flags, input };
}

type Opt = { type: 'string' | 'boolean'; short?: string; multiple?: boolean };

function parse(spec: CommandSpec, argv: readonly string[], withHelp = true): { help: boolean } & ParsedFlags {
  const quick = plain(spec, argv, withHelp);
  if (quick) return quick;
  const options: Record<string, Opt> = {};
  const byLong = new Map<string, string>(); // kebab or camel long name → flag name
  for (const [name, f] of Object.entries(spec.flags)) {
    const long = kebab(name);
    options[long] = {
      type: f.type === 'boolean' ? 'boolean' : 'string',
      ...(f.shortFlag ? { short: f.shortFlag } : {}),
      ...(f.isMultiple ? { multiple: true } : {}),
    };
    byLong.set(long, name);
    byLong.set(name, name);
  }
  if (withHelp) options.help = { type: 'boolean', short: 'h' };

  // Tokens that can't be flags are swapped for placeholders parseArgs reads as plain positionals
  // (or option values) and swapped back afterwards; `--no-<boolean>` and camelCase spellings are
  // rewritten to what parseArgs knows.
  const held: string[] = [];
  const placeholder = (tok: string): string => `\u0000${held.push(tok) - 1}`;
  const unhold = (v: string): string => (v.startsWith('\u0000') ? (held[Number(v.slice(1))] ?? v) : v);
  const negated = new Set<string>();
  const args: string[] = [];
  let ended = false;
  for (const tok of argv) {
    if (ended || !tok.startsWith('-')) {
      args.push(tok);
      if (tok === '--') ended = true;
      continue;
    }
    if (cannotBeFlag(tok)) {
      args.push(placeholder(tok));
      continue;
    }
    if (tok === '--' || !tok.startsWith('--')) {
      if (tok === '--') ended = true;
      args.push(tok);
      continue;
    }
    const [rawName, ...rest] = tok.slice(2).split('=');
    const value = rest.length ? `=${rest.join('=')}` : '';
    const direct = byLong.get(rawName!);
    if (direct) {
      // The last of `--x` and `--no-x` wins, as in git (an alias's flag can be overridden).
      negated.delete(direct);
      args.push(`--${kebab(direct)}${value}`);
      continue;
    }
    const bare = rawName!.startsWith('no-') ? byLong.get(rawName!.slice(3)) : undefined;
    if (bare && spec.flags[bare]?.type === 'boolean' && !value) {
      negated.add(bare);
      continue;
    }
    args.push(tok);
  }

  let parsed = run(spec, args, options);
  // `--help` after the first positional is text, not a request for help: parse again with it held.
  if (withHelp) {
    const late = lateHelp(spec, parsed.tokens ?? []);
    if (late.length) {
      for (const i of late) args[i] = placeholder(args[i]!);
      parsed = run(spec, args, options);
    }
  }

  const values = parsed.values;
  const flags = withDefaults(spec, (name) => {
    let v: unknown = values[kebab(name)];
    if (typeof v === 'string') v = unhold(v);
    if (Array.isArray(v)) v = v.map((x) => (typeof x === 'string' ? unhold(x) : x));
    if (negated.has(name)) v = false;
    return v;
  });
  return { help: values.help === true, flags, input: parsed.positionals.map(unhold) };
}

/** Each flag's value (numbers converted), or its default. */
function withDefaults(spec: CommandSpec, valueOf: (name: string) => unknown): Flags {
  const flags: Flags = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    let v = valueOf(name);
    if (f.type === 'number' && v !== undefined) {
      v = Array.isArray(v) ? v.map((x) => Number(x)) : Number(v);
    }
    if (v === undefined && f.default !== undefined) v = f.isMultiple ? [f.default] : f.default;
    if (v !== undefined) flags[name] = v as Flags[string];
  }
  return flags;
}

/**
 * The usual command line without node's parser (loading it was ~3 % of `klaude sessions`): words
 * that do not start with '-', and boolean flags spelt exactly (`--json`, `-v`, `--help` before the
 * first word). Anything else (values, `--no-…`, `--`, unknown flags, a late `--help`) is left to
 * parseArgs, whose result would be the same for what this takes.
 */
function plain(
  spec: CommandSpec,
  argv: readonly string[],
  withHelp: boolean,
): ({ help: boolean } & ParsedFlags) | null {
  const on = new Set<string>();
  const input: string[] = [];
  let help = false;
  for (const tok of argv) {
    if (!tok.startsWith('-')) {
      input.push(tok);
      continue;
    }
    if (withHelp && (tok === '--help' || tok === '-h') && helpStillCounts(spec, input)) {
      help = true;
      continue;
    }
    const name = Object.keys(spec.flags).find((n) =>
      tok.startsWith('--') ? tok === `--${kebab(n)}` : tok.length === 2 && tok[1] === spec.flags[n]!.shortFlag,
    );
    if (name === undefined || spec.flags[name]!.type !== 'boolean' || spec.flags[name]!.isMultiple) return null;
    on.add(name);
  }
  return {
    help,
    flags: withDefaults(spec, (name) => (on.has(name) ? true : undefined)),
    input,
  };
}

/** Where `--help` is text: after the first word (after the second, when the first names an action). */
function lateHelp(spec: CommandSpec, tokens: NonNullable<ReturnType<typeof parseArgs>['tokens']>): number[] {
  const positionals = tokens.filter((t) => t.kind === 'positional');
  const action = positionals[0] !== undefined && isSubcommand(spec, positionals[0].value);
  const first = positionals[action ? 1 : 0]?.index ?? Infinity;
  return tokens.filter((t) => t.kind === 'option' && t.name === 'help' && t.index > first).map((t) => t.index);
}

function isSubcommand(spec: CommandSpec, word: string | undefined): boolean {
  return word !== undefined && (spec.subcommands?.includes(word) ?? false);
}

/** Before the first word, or right after an action word (`queue move --help`). */
function helpStillCounts(spec: CommandSpec, input: readonly string[]): boolean {
  return input.length === 0 || (input.length === 1 && isSubcommand(spec, input[0]));
}

function run(spec: CommandSpec, args: string[], options: Record<string, Opt>): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw usageError(spec, e as Error & { code?: string }, options);
  }
}

/** parseArgs' multi-sentence errors → one line with a code and a hint. */
function usageError(spec: CommandSpec, e: Error & { code?: string }, options: Record<string, Opt>): KlaudeError {
  const where = spec.name ? `'klaude ${spec.name}'` : "'klaude'";
  const helpHint = `run \`klaude ${spec.name ? `${spec.name} ` : ''}--help\` for its flags`;
  const quoted = /'(-[^']*)'/.exec(e.message)?.[1];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) {
    const name = quoted.replace(/^-+/, '');
    const longs = Object.keys(options).filter((o) => o !== 'help');
    // A one-letter flag this command doesn't have: the long flag with that initial, if one.
    const near = quoted.startsWith('--')
      ? closestName(name, longs)
      : name.length === 1
        ? longs.find((o) => o.startsWith(name))
        : undefined;
    const asText = `to pass '${quoted}' as text, put it after \`--\``;
    return new KlaudeError('E_UNKNOWN_FLAG', `unknown flag '${quoted}' for ${where}`, {
      hint: near ? `did you mean \`--${near}\`? (${helpHint})` : `${helpHint}; ${asText}`,
    });
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const long = /'--([a-z0-9-]+)/.exec(e.message)?.[1];
    const opt = long ? options[long] : undefined;
    if (long && opt?.type === 'string') {
      return new KlaudeError('E_USAGE', `--${long} needs a value`, {
        hint: `usage: ${spec.usage}; a value starting with '-' goes as --${long}=<value>`,
      });
    }
    if (long) return new KlaudeError('E_USAGE', `--${long} takes no value`, { hint: `usage: ${spec.usage}` });
  }
  return new KlaudeError('E_USAGE', e.message.split('. ')[0]!, { hint: `usage: ${spec.usage}` });
}
