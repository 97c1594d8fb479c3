import { KlaudeError } from '../lib/errors.js';
import type { CommandSpec } from './types.js';

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/**
 * meow would print its own multi-line message and exit; we want one line with a code
 * and a hint, so unknown flags are found here first.
 */
export function checkUnknownFlags(spec: CommandSpec, argv: string[]): void {
  const longs = new Map<string, string>();
  const shorts = new Set<string>();
  for (const [name, f] of Object.entries(spec.flags)) {
    longs.set(kebab(name), f.type);
    longs.set(name, f.type);
    if (f.shortFlag) shorts.add(f.shortFlag);
  }
  const where = spec.name ? `'klaude ${spec.name}'` : "'klaude'";
  const hint = `run \`klaude ${spec.name ? `${spec.name} ` : ''}--help\` for its flags`;
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === '-' || !tok.startsWith('-') || /^-\d/.test(tok)) continue;
    if (tok.startsWith('--')) {
      const name = tok.slice(2).split('=')[0]!;
      const bare = name.startsWith('no-') ? name.slice(3) : name;
      const type = longs.get(name) ?? (longs.get(bare) === 'boolean' ? 'boolean' : undefined);
      if (!type) throw new KlaudeError('E_UNKNOWN_FLAG', `unknown flag '--${name}' for ${where}`, { hint });
      if (type !== 'boolean' && !tok.includes('=')) i++;
      continue;
    }
    const letters = tok.slice(1);
    for (let j = 0; j < letters.length; j++) {
      const ch = letters[j]!;
      if (!shorts.has(ch)) throw new KlaudeError('E_UNKNOWN_FLAG', `unknown flag '-${ch}' for ${where}`, { hint });
      const entry = Object.values(spec.flags).find((f) => f.shortFlag === ch);
      if (entry && entry.type !== 'boolean') {
        if (j === letters.length - 1) i++;
        break;
      }
    }
  }
}

function distance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i]![j] = Math.min(dp[i - 1]![j]! + 1, dp[i]![j - 1]! + 1, dp[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return dp[a.length]![b.length]!;
}

export function closestCommand(name: string, commands: CommandSpec[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of commands) {
    if (!c.name) continue;
    const d = c.name.startsWith(name) ? 0 : distance(name, c.name);
    if (d <= 2 && (!best || d < best.d)) best = { name: c.name, d };
  }
  return best?.name;
}
