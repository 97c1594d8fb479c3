/**
 * What a reviewer agent is told (`klaude review`): whose work it reviews and what the task was, the
 * work itself (the diff, or the final answer; bounded, with where to read the rest), the person's
 * focus, and the answer's shape (core/findings.ts). Pure text.
 */
import { REVIEW_SHAPE, type ReviewSubject } from '../core/findings.js';

/** The largest diff or answer put in the prompt; a larger one is cut, and the reviewer told how to read it all. */
export const REVIEW_TEXT_MAX = 200_000;
const TASK_MAX = 4000;

export interface ReviewMaterial {
  /** `general 7XQ2ABCD (claude)`. */
  origin: string;
  /** What the origin was asked (its first prompt). */
  task: string | null;
  subject: ReviewSubject;
  /** The unified diff, or the final answer. */
  text: string;
  /** Diffs: what it is a diff of (`branch klaude/… against 1a2b3c4d5e, uncommitted work included`). */
  about: string;
  /** Diffs: the changed files, `path (+3 -1)`. */
  files: string[];
  /** Where the reviewer runs (the origin's worktree, or the project). */
  cwd: string;
  /** How to read the whole work when it was cut (`klaude diff 7XQ2`). */
  fullCommand: string;
  focus: string | null;
}

function bounded(text: string): { text: string; cut: boolean } {
  if (text.length <= REVIEW_TEXT_MAX) return { text, cut: false };
  return { text: text.slice(0, REVIEW_TEXT_MAX), cut: true };
}

/** The reviewer's first prompt. */
export function reviewPrompt(m: ReviewMaterial): string {
  const { text, cut } = bounded(m.text);
  const task = m.task ? (m.task.length > TASK_MAX ? `${m.task.slice(0, TASK_MAX)}…` : m.task) : null;
  const out = [
    `Review the work of another AI agent: ${m.origin}.`,
    `This is a read-only review: change no file. You may read the files under ${m.cwd} for context.`,
  ];
  if (task) out.push('', 'Its task was:', '<task>', task, '</task>');
  if (m.focus) out.push('', `Focus on: ${m.focus}`);
  out.push('');
  if (m.subject === 'diff') {
    out.push(
      `Its changes (${m.about}; ${m.files.length} file${m.files.length === 1 ? '' : 's'}: ${m.files.join(', ')}):`,
    );
    out.push('<diff>', text, '</diff>');
  } else {
    out.push('Its final answer:', '<answer>', text, '</answer>');
  }
  if (cut) out.push(`(cut at ${REVIEW_TEXT_MAX} characters: \`${m.fullCommand}\` shows all of it)`);
  out.push(
    '',
    'Report every real problem: bugs, wrong or missing behaviour, unhandled cases, security issues, wrong or',
    'misleading statements. Leave out matters of taste.',
    'End your answer with exactly one fenced ```json block in this shape, and no other JSON block:',
    '```json',
    REVIEW_SHAPE,
    '```',
    'severity is "high", "medium", "low" or "info". file is relative to the reviewed tree; file and line are',
    `null when a finding is about no particular place${m.subject === 'output' ? ' (for an answer, file is null)' : ''}.`,
    'An empty findings list means you found nothing to fix.',
  );
  return out.join('\n');
}
