/**
 * Small pieces shared by the adapters: safe field access on parsed JSON lines, the tail of a
 * CLI's stderr, and prompt assembly for CLIs that have no way to append to their system prompt.
 * Pure. The normalisers' shared line loop and events are in normaliser-kit.ts.
 */
import { stripEscapes } from '../lib/escapes.js';

export type Json = Record<string, unknown>;
export const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
export const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
export const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** A stdout line as a JSON object with a string `type`, or null. */
export function parseLine(raw: string): (Json & { type: string }) | null {
  const t = raw.trim();
  if (!t.startsWith('{')) return null;
  try {
    const o: unknown = JSON.parse(t);
    return isObj(o) && typeof o.type === 'string' ? (o as Json & { type: string }) : null;
  } catch {
    return null;
  }
}

/** The last few lines of stderr, on one line (for error messages). */
export function stderrTail(stderr: string, lines = 3): string {
  return stderr
    .trim()
    .split('\n')
    .map((l) => stripEscapes(l).trim())
    .filter((l) => l !== '')
    .slice(-lines)
    .join(' | ');
}

/**
 * The first message for a CLI without a system-prompt flag: klaude's instructions (agent
 * definition body + preamble) ahead of the task, only when a session starts (a resumed session
 * already has them).
 */
export function withInstructions(
  prompt: string | undefined,
  instructions: string | null | undefined,
  resume: boolean,
): string {
  const p = prompt ?? '';
  if (resume || !instructions || instructions.trim() === '') return p;
  return `<instructions>\n${instructions.trim()}\n</instructions>\n\n${p}`;
}
