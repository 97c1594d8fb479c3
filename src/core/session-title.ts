/**
 * What tells sessions apart in every listing: the title the person gave (`klaude rename`), else the
 * runtime's own title, else the first prompt; and pins (pinned rows first). Pure.
 */
export interface Titled {
  /** The person's title (`klaude rename`); optional: rows built by hand in tests leave it out. */
  name?: string | null;
  title: string | null;
  prompt: string | null;
}

/** The line a row shows: the person's title, else the session's title, else its prompt ('' when none). */
export function shownTitle(s: Titled): string {
  return s.name || s.title || s.prompt || '';
}

/** Longest title `klaude rename` keeps (a row shows far less). */
export const MAX_NAME_CHARS = 120;

/** A typed title made one line and clipped; '' (clear the title) stays ''. */
export function cleanName(input: string): string {
  return input.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_CHARS);
}

export interface Pinnable {
  pinnedAt?: number | null;
}

/** Pinned first (the earliest pinned on top), the rest in their given order: for a stable sort. */
export function byPin(a: Pinnable, b: Pinnable): number {
  const pa = a.pinnedAt ?? null;
  const pb = b.pinnedAt ?? null;
  if (pa === null) return pb === null ? 0 : 1;
  if (pb === null) return -1;
  return pa - pb;
}

/** ` "auth refactor"` after a label (`agent 7XQ2ABCD (coder)`) when the person named the session, else ''. */
export function nameSuffix(name: string | null | undefined): string {
  return name ? ` "${name}"` : '';
}
