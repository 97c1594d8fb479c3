/**
 * One line of `klaude doctor`: what was checked, how it went, and what to do about it. Checks are
 * plain data (no printing here): the command prints them as ✔/!/✗ lines or as JSON.
 */
export type CheckLevel = 'ok' | 'warn' | 'error';

export interface CheckResult {
  /** Short name of what was checked (`claude`, `hooks`, `database`…). */
  check: string;
  /** False only for `error`: a warning is something to know, not a broken klaude. */
  ok: boolean;
  level: CheckLevel;
  /** What was found, one line. */
  detail: string;
  /** What the person should do, one line; null when nothing is needed. */
  fix: string | null;
}

export const passed = (check: string, detail: string): CheckResult => ({
  check,
  ok: true,
  level: 'ok',
  detail,
  fix: null,
});

export const warned = (check: string, detail: string, fix: string | null = null): CheckResult => ({
  check,
  ok: true,
  level: 'warn',
  detail,
  fix,
});

export const failed = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  ok: false,
  level: 'error',
  detail,
  fix,
});
