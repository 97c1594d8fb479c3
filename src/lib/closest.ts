/** Did-you-mean: the known name nearest to what was typed (commands, flags, agent types, runtimes). */

function distance(a: string, b: string): number {
  const dp = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) dp[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i]![j] = Math.min(
        dp[i - 1]![j]! + 1,
        dp[i]![j - 1]! + 1,
        dp[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  return dp[a.length]![b.length]!;
}

/**
 * The name nearest to `name` (one it starts, or at most 2 edits away, case-insensitive), if any.
 * Of the names it starts, the shortest: `--resum` is `--resume`, not `--resume-last`.
 */
export function closestName(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  const typed = name.toLowerCase();
  for (const n of names) {
    if (!n) continue;
    const d = n.toLowerCase().startsWith(typed)
      ? (n.length - typed.length) / (n.length + 1)
      : distance(typed, n.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

/** `did you mean \`x\`? ` or '' — for the front of a hint. */
export function didYouMean(name: string, names: readonly string[], show: (n: string) => string = (n) => n): string {
  const near = closestName(name, names);
  return near ? `did you mean \`${show(near)}\`? ` : '';
}
