/**
 * Flag parsing for subcommands with node's built-in `util.parseArgs` (replacing meow, whose import
 * alone cost ≈15–30 ms per command: it evaluates normalize-package-data and the SPDX license lists).
 * Run after `checkUnknownFlags` (argv.ts), which rejects unknown flags with a one-line error.
 *
 * Same results as the meow setup it replaces: camelCase flag names (`--resume-last` → resumeLast),
 * `--no-<flag>` for booleans, numbers converted (NaN left for the caller to report), defaults
 * applied, absent booleans undefined, `isMultiple` collected into arrays.
 */
import { parseArgs } from 'node:util';
import { KlaudeError } from '../lib/errors.js';
import type { CommandSpec, Flags } from './types.js';

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export interface ParsedFlags {
  flags: Flags;
  input: string[];
}

export function parseFlags(spec: CommandSpec, argv: readonly string[]): ParsedFlags {
  type Opt = { type: 'string' | 'boolean'; short?: string; multiple?: boolean };
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
  // `--no-<boolean>` and camelCase spellings (`--resumeLast`) are rewritten to what parseArgs knows.
  const negated = new Set<string>();
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (!tok.startsWith('--') || tok === '--') {
      args.push(tok);
      continue;
    }
    const [rawName, ...rest] = tok.slice(2).split('=');
    const value = rest.length ? `=${rest.join('=')}` : '';
    const direct = byLong.get(rawName!);
    if (direct) {
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

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: false });
  } catch (e) {
    throw new KlaudeError('E_USAGE', (e as Error).message, { hint: `usage: ${spec.usage}` });
  }

  const flags: Flags = {};
  for (const [name, f] of Object.entries(spec.flags)) {
    let v: unknown = parsed.values[kebab(name)];
    if (negated.has(name)) v = false;
    if (f.type === 'string' && typeof v === 'boolean') {
      // `--flag` given without its value (strict: false lets it through as `true`).
      throw new KlaudeError('E_USAGE', `--${kebab(name)} needs a value`, { hint: `usage: ${spec.usage}` });
    }
    if (f.type === 'number' && v !== undefined) {
      v = Array.isArray(v) ? v.map((x) => Number(x)) : typeof v === 'boolean' ? Number.NaN : Number(v);
    }
    if (v === undefined && f.default !== undefined) v = f.isMultiple ? [f.default] : f.default;
    if (v !== undefined) flags[name] = v as Flags[string];
  }
  return { flags, input: parsed.positionals.map(String) };
}
