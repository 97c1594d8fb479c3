/**
 * How far along a running agent is. From its own todo list when it keeps one (claude's TodoWrite
 * or its task tools TaskCreate/TaskUpdate, codex's todo_list, gemini's write_todos, opencode's
 * todowrite): `done/total`. Else an estimate from its tool calls and output so far against the
 * medians of its agent type's completed runs in this project: `~40 %`. With neither, an honest
 * `?`. Pure: imports nothing of the project.
 *
 * Which todo tool a claude has depends on its version and settings (docs/claude-versions.md):
 * 2.1.197 and 2.1.332 give TaskCreate/TaskUpdate by default and TodoWrite only with
 * CLAUDE_CODE_ENABLE_TASKS=false, so both are read.
 */

export type ProgressKind = 'todo' | 'estimate' | 'none';

/** What listings show and `--json` prints. */
export interface Progress {
  kind: ProgressKind;
  /** todo: items completed and items in the list; null otherwise. */
  done: number | null;
  total: number | null;
  /** estimate: 0–95 (never 100 while it runs); todo: done/total in percent; null for none. */
  percent: number | null;
  /** Where the figure comes from, in words ("its todo list (TodoWrite)", "median of 5 runs of general…"). */
  basis: string;
}

/** What a session's row keeps: the progress shown, plus claude's task list (TaskUpdate changes one task). */
export interface ProgressRecord extends Progress {
  tasks?: Record<string, string>;
  /** todo: the tool that keeps the list (a later run goes on from it). */
  tool?: string;
}

/** A todo list read from a tool call. */
export interface TodoCount {
  done: number;
  total: number;
  /** The tool that keeps it. */
  tool: string;
}

/** Tools whose input is the whole list, and how to read an item. */
const LIST_TOOLS: Record<string, (input: Record<string, unknown>) => unknown[] | null> = {
  TodoWrite: (i) => arr(i.todos),
  todowrite: (i) => arr(i.todos),
  write_todos: (i) => arr(i.todos),
  todo_list: (i) => arr(i.items),
};

/** claude's task tools: one task per call, the list kept by claude (~/.claude/tasks/<session>/). */
const TASK_TOOLS = new Set(['TaskCreate', 'TaskUpdate']);
/** Tools that only keep the list: not counted as work for the estimate. */
const BOOKKEEPING = new Set([...Object.keys(LIST_TOOLS), ...TASK_TOOLS, 'TaskList', 'TaskGet']);

const arr = (x: unknown): unknown[] | null => (Array.isArray(x) ? x : null);
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined =>
  typeof x === 'string' && x !== '' ? x : typeof x === 'number' ? String(x) : undefined;

/** Items that are no longer work to do: not counted at all. */
const DROPPED = new Set(['cancelled', 'deleted']);

export const isTodoTool = (name: string): boolean => name in LIST_TOOLS || TASK_TOOLS.has(name);
export const isBookkeepingTool = (name: string): boolean => BOOKKEEPING.has(name);

/** The list a list-writing tool call sets (null: not such a call, or not a list). */
export function todoListOf(name: string, input: unknown): TodoCount | null {
  const read = LIST_TOOLS[name];
  const items = read && isObj(input) ? read(input) : null;
  if (!items) return null;
  let done = 0;
  let total = 0;
  for (const it of items) {
    if (!isObj(it)) continue;
    const status = str(it.status);
    if (status && DROPPED.has(status)) continue;
    total++;
    if (status === 'completed' || it.completed === true) done++;
  }
  return { done, total, tool: name };
}

/** What a task tool's successful call did to the list (null: nothing readable). */
export function applyTaskCall(
  tasks: Readonly<Record<string, string>>,
  name: string,
  input: unknown,
  result: { output?: string; response?: unknown },
): Record<string, string> | null {
  if (!TASK_TOOLS.has(name)) return null;
  const i = isObj(input) ? input : {};
  const r = isObj(result.response) ? result.response : {};
  if (name === 'TaskCreate') {
    // The hook's tool_response has {task: {id}}; the stream's result text "Task #3 created successfully: …".
    const id = str(isObj(r.task) ? r.task.id : undefined) ?? /Task #(\S+?) created/.exec(result.output ?? '')?.[1];
    return id ? { ...tasks, [id]: 'pending' } : null;
  }
  const id = str(i.taskId) ?? str(r.taskId);
  const status = str(i.status) ?? str(isObj(r.statusChange) ? r.statusChange.to : undefined);
  if (!id || !status) return null;
  const next = { ...tasks };
  if (DROPPED.has(status)) delete next[id];
  else next[id] = status;
  return next;
}

export function taskCount(tasks: Readonly<Record<string, string>>): TodoCount {
  const all = Object.values(tasks);
  return { done: all.filter((s) => s === 'completed').length, total: all.length, tool: 'TaskCreate/TaskUpdate' };
}

export function todoProgress(t: TodoCount, tasks?: Record<string, string>): ProgressRecord {
  return {
    kind: 'todo',
    done: t.done,
    total: t.total,
    percent: t.total > 0 ? Math.round((100 * t.done) / t.total) : 0,
    basis: `its todo list (${t.tool})`,
    tool: t.tool,
    ...(tasks ? { tasks } : {}),
  };
}

/** Past completed runs of an agent type in a project: their number and medians. */
export interface Baseline {
  runs: number;
  toolCalls: number;
  outputChars: number;
}

/** So many completed runs before a median means anything. */
export const MIN_RUNS = 3;
/** An estimate never says more than this while the agent runs (past the median it is "nearly"). */
export const ESTIMATE_MAX = 95;

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What this run has done so far. */
export interface RunMeasure {
  toolCalls: number;
  outputChars: number;
}

/** The estimate for a run of `type` that has done `m`, against `b` (null or too few runs: none). */
export function estimate(type: string, m: RunMeasure, b: Baseline | null): ProgressRecord {
  if (!b || b.runs < MIN_RUNS) {
    const n = b?.runs ?? 0;
    return {
      kind: 'none',
      done: null,
      total: null,
      percent: null,
      basis:
        n === 0
          ? `no completed run of ${type} in this project yet`
          : `${plural(n, 'completed run')} of ${type} in this project; ${MIN_RUNS} needed`,
    };
  }
  const ratios: number[] = [];
  if (b.toolCalls > 0) ratios.push(m.toolCalls / b.toolCalls);
  if (b.outputChars > 0) ratios.push(m.outputChars / b.outputChars);
  // Whichever has gone furthest: an agent's answer comes mostly at the end, its tool calls all along.
  const r = ratios.length ? Math.max(...ratios) : 0;
  return {
    kind: 'estimate',
    done: null,
    total: null,
    percent: Math.min(ESTIMATE_MAX, Math.round(100 * r)),
    basis: `median of ${b.runs} runs of ${type}: ${plural(Math.round(b.toolCalls), 'tool call')}, ${plural(Math.round(b.outputChars), 'character')} of output`,
  };
}

/** `3/7`, `~40 %`, or `?`. */
export function formatProgress(p: Pick<Progress, 'kind' | 'done' | 'total' | 'percent'>): string {
  if (p.kind === 'todo') return `${p.done ?? 0}/${p.total ?? 0}`;
  if (p.kind === 'estimate') return `~${p.percent ?? 0} %`;
  return '?';
}

/** The public part of a stored record (no task list); null stays null. */
export function publicProgress(r: ProgressRecord | null | undefined): Progress | null {
  if (!r) return null;
  return { kind: r.kind, done: r.done ?? null, total: r.total ?? null, percent: r.percent ?? null, basis: r.basis };
}

/** The same figure on screen (a write is needed only when this changes). */
export const sameShown = (a: Progress | null, b: Progress | null): boolean =>
  a === b || (!!a && !!b && a.kind === b.kind && formatProgress(a) === formatProgress(b) && a.basis === b.basis);

/**
 * What a row shows beside a running session's activity: `3/7`, `~40 %` or `?`. An interactive
 * session (type `tui`: the person is at its prompt) shows only its todo list, never a guess.
 */
export function progressLabel(p: Progress | null | undefined, type: string): string {
  if (!p || (type === 'tui' && p.kind !== 'todo')) return '';
  return formatProgress(p);
}
