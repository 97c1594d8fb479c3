/**
 * Queue priority of a headless agent (`klaude start --priority`, a definition's `priority:`,
 * `klaude queue move … --priority`): the run queue serves higher levels first, first in first out
 * within a level. Stored as a number (higher first), named for people. Pure: imports nothing of
 * the project.
 */
export const PRIORITY_NAMES = ['high', 'normal', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];

const LEVEL: Record<PriorityName, number> = { high: 1, normal: 0, low: -1 };

export function isPriorityName(x: unknown): x is PriorityName {
  return typeof x === 'string' && (PRIORITY_NAMES as readonly string[]).includes(x);
}

/** The stored level of a name. */
export const priorityLevel = (name: PriorityName): number => LEVEL[name];

/** The name of a stored level (levels outside the three read as the nearest). */
export function priorityName(level: number | null | undefined): PriorityName {
  if (!level) return 'normal';
  return level > 0 ? 'high' : 'low';
}
