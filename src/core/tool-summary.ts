/**
 * Shared bits of normalising: the one-line key argument of a tool call, clipping, which tool
 * calls edit or create files, and what a session running a tool is doing (the runtimes' events
 * and the interactive PreToolUse hook say it the same way). Pure.
 */

/** Tool name → the input key that best says what the call does. */
const KEY_ARG: Record<string, readonly string[]> = {
  Bash: ['command'],
  BashOutput: ['bash_id'],
  KillShell: ['shell_id'],
  Read: ['file_path'],
  Write: ['file_path'],
  Edit: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path', 'file_path'],
  NotebookRead: ['notebook_path'],
  Grep: ['pattern'],
  Glob: ['pattern'],
  LS: ['path'],
  WebFetch: ['url'],
  WebSearch: ['query'],
  Task: ['description', 'prompt'],
  Agent: ['description', 'prompt'],
  TodoWrite: [],
  Skill: ['skill', 'command'],
};

export const SUMMARY_MAX = 200;
export const TOOL_OUTPUT_MAX = 2000;

/** One line, at most `max` characters (an ellipsis marks the cut). */
export function oneLine(s: string, max = SUMMARY_MAX): string {
  const flat = s
    .replace(/\s*\n\s*/g, ' ⏎ ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Keep the head of a long text and say how much was cut. */
export function clip(s: string, max = TOOL_OUTPUT_MAX): string {
  if (s.length <= max) return s;
  return `${s.slice(0, max)}… [${s.length - max} more chars]`;
}

/** The key argument of a tool call, as one line: command, file path, pattern, url, description, else the first string. */
export function toolSummary(name: string, input: unknown): string {
  if (input === null || typeof input !== 'object') return typeof input === 'string' ? oneLine(input) : '';
  const rec = input as Record<string, unknown>;
  const keys = KEY_ARG[name] ?? KEY_ARG[name.replace(/^mcp__.*__/, '')];
  if (keys) {
    for (const k of keys) if (typeof rec[k] === 'string' && rec[k] !== '') return oneLine(rec[k] as string);
    if (name === 'TodoWrite' && Array.isArray(rec.todos)) return `${rec.todos.length} todos`;
  }
  for (const v of Object.values(rec)) if (typeof v === 'string' && v !== '') return oneLine(v);
  return '';
}

const ACTIVITY_MAX = 120;

/** A session's activity while a tool runs: `Bash: npm test`, one line, at most 120 characters. */
export function toolActivity(name: string, summary: string): string {
  return oneLine(`${name}${summary ? `: ${summary}` : ''}`, ACTIVITY_MAX);
}

/** Tools whose successful call changes a file (path key → kind). Write may create; the others edit. */
export function fileChange(name: string, input: unknown): { path: string; kind: 'write' | 'edit' } | null {
  if (input === null || typeof input !== 'object') return null;
  const rec = input as Record<string, unknown>;
  const p =
    typeof rec.file_path === 'string'
      ? rec.file_path
      : typeof rec.notebook_path === 'string'
        ? rec.notebook_path
        : null;
  if (!p) return null;
  if (name === 'Write') return { path: p, kind: 'write' };
  if (name === 'Edit' || name === 'MultiEdit' || name === 'NotebookEdit') return { path: p, kind: 'edit' };
  return null;
}

/** Ordered set of file paths: created files never also count as edited. */
export class FileTracker {
  private readonly edited = new Set<string>();
  private readonly created = new Set<string>();

  record(path: string, kind: 'created' | 'edited'): void {
    if (kind === 'created') {
      this.edited.delete(path);
      this.created.add(path);
    } else if (!this.created.has(path)) {
      this.edited.add(path);
    }
  }

  snapshot(): { filesEdited: string[]; filesCreated: string[] } {
    return { filesEdited: [...this.edited], filesCreated: [...this.created] };
  }
}
