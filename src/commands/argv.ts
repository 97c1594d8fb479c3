/** Did-you-mean for commands, flags, agent types and runtimes. */
import type { CommandSpec } from './types.js';

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

/** The name nearest to `name` (a prefix of it, or at most 2 edits away), for did-you-mean hints. */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    if (!n) continue;
    const d = n.startsWith(name) ? 0 : distance(name.toLowerCase(), n.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

export function closestCommand(name: string, commands: CommandSpec[]): string | undefined {
  return closestName(name, commands.map((c) => c.name));
}
