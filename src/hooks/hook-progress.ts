/**
 * An interactive claude's todo list, from its PostToolUse hook (its turns pass through no klaude
 * runtime): TodoWrite's list, or the task list its TaskCreate/TaskUpdate calls keep (the hook gets
 * each call's input and response; docs/claude-versions.md). Only successful calls run PostToolUse,
 * so a refused call changes nothing. The row's `progress` is what listings show while a turn runs.
 */
import {
  applyTaskCall,
  isTodoTool,
  taskCount,
  todoListOf,
  todoProgress,
  type ProgressRecord,
} from '../core/progress.js';

function parse(text: string | null): ProgressRecord | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as ProgressRecord;
  } catch {
    return null;
  }
}

/** The row's new progress (JSON) after a tool call, or undefined when the call is no todo-list change. */
export function progressAfterTool(
  stored: string | null,
  tool: string | undefined,
  input: unknown,
  response: unknown,
): string | undefined {
  if (!tool || !isTodoTool(tool)) return undefined;
  const prev = parse(stored);
  const list = todoListOf(tool, input);
  if (list) return JSON.stringify(todoProgress(list, prev?.tasks));
  const tasks = applyTaskCall(prev?.tasks ?? {}, tool, input, { response });
  return tasks ? JSON.stringify(todoProgress(taskCount(tasks), tasks)) : undefined;
}

/**
 * A new interactive turn: a figure left by an earlier headless run (an estimate) says nothing of
 * it, so only a todo list still open stays; the task list is kept (claude keeps it too).
 */
export function progressAtTurnStart(stored: string | null): string | undefined {
  const prev = parse(stored);
  if (!prev || (prev.kind === 'todo' && (prev.done ?? 0) < (prev.total ?? 0))) return undefined;
  if (prev.kind === 'none' && !prev.tasks) return undefined;
  const none: ProgressRecord = {
    kind: 'none',
    done: null,
    total: null,
    percent: null,
    basis: 'an interactive turn: no todo list yet',
    ...(prev.tasks ? { tasks: prev.tasks } : {}),
  };
  return JSON.stringify(none);
}
