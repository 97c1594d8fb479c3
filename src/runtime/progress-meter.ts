/**
 * How far along this run is (core/progress.ts), from the events the runtime records: its todo list
 * when it keeps one, else its tool calls and output against its agent type's past runs. Written to
 * the session's row only when what a listing shows changes; the run's measure is kept when it ends
 * done, as the basis of later runs' estimates.
 */
import type { AgentEventInput } from '../core/events.js';
import {
  applyTaskCall,
  estimate,
  isBookkeepingTool,
  isTodoTool,
  sameShown,
  taskCount,
  todoListOf,
  todoProgress,
  type Baseline,
  type ProgressRecord,
  type RunMeasure,
  type TodoCount,
} from '../core/progress.js';
import { recordRunMeasure, runBaseline } from '../db/repos/run-measures.js';
import { updateSession } from '../db/repos/sessions.js';
import type { Deps } from './deps.js';

/** codex's todo_list is the CLI's own plan, never a call that can fail: it counts when it is seen. */
const TAKEN_AT_CALL = new Set(['todo_list']);

export interface MeterOptions {
  type: string;
  baseline: Baseline | null;
  /** What the row kept from the session's earlier runs (claude's task list goes on across runs). */
  previous: ProgressRecord | null;
  write: (p: ProgressRecord) => void;
}

export class ProgressMeter {
  private toolCalls = 0;
  private outputChars = 0;
  /** Todo-tool calls waiting for their result (a refused TodoWrite changes nothing). */
  private readonly calls = new Map<string, { name: string; input: unknown }>();
  private todo: TodoCount | null = null;
  private tasks: Record<string, string>;
  private shown: ProgressRecord | null = null;

  constructor(private readonly o: MeterOptions) {
    const prev = o.previous;
    this.tasks = { ...(prev?.tasks ?? {}) };
    // An unfinished list of an earlier run is still the agent's list; a finished one is not this run's.
    if (prev?.kind === 'todo' && prev.done !== null && prev.total !== null && prev.done < prev.total)
      this.todo = { done: prev.done, total: prev.total, tool: prev.tool ?? 'todo list' };
  }

  get measure(): RunMeasure {
    return { toolCalls: this.toolCalls, outputChars: this.outputChars };
  }

  /** The progress now (with the task list, which the row keeps). */
  current(): ProgressRecord {
    const tasks = Object.keys(this.tasks).length > 0 ? this.tasks : undefined;
    if (this.todo && this.todo.total > 0) return todoProgress(this.todo, tasks);
    return { ...estimate(this.o.type, this.measure, this.o.baseline), ...(tasks ? { tasks } : {}) };
  }

  /** Write the first figure of the run. */
  begin(): void {
    this.publish();
  }

  onEvent(e: AgentEventInput): void {
    switch (e.type) {
      case 'tool_call':
        if (TAKEN_AT_CALL.has(e.name)) this.todo = todoListOf(e.name, e.input) ?? this.todo;
        else if (isTodoTool(e.name)) this.calls.set(e.id, { name: e.name, input: e.input });
        if (!isBookkeepingTool(e.name)) this.toolCalls++;
        break;
      case 'tool_result':
        this.onResult(e.id, e.isError, e.output);
        break;
      case 'text':
        this.outputChars += e.text.length;
        break;
      default:
        return;
    }
    this.publish();
  }

  private onResult(id: string, isError: boolean, output: string): void {
    const call = this.calls.get(id);
    if (!call) return;
    this.calls.delete(id);
    if (isError) return;
    const list = todoListOf(call.name, call.input);
    if (list) {
      this.todo = list;
      return;
    }
    const tasks = applyTaskCall(this.tasks, call.name, call.input, { output });
    if (tasks) {
      this.tasks = tasks;
      this.todo = taskCount(tasks);
    }
  }

  private publish(): void {
    const p = this.current();
    const tasksChanged = JSON.stringify(p.tasks ?? {}) !== JSON.stringify(this.shown?.tasks ?? {});
    if (!tasksChanged && sameShown(this.shown, p)) return;
    this.shown = p;
    this.o.write(p);
  }
}

/** The meter of one run of the runtime's agent: its baseline read once, its figure on the row. */
export class RunProgress {
  private readonly meter: ProgressMeter;
  private readonly start = Date.now();

  constructor(private readonly d: Deps) {
    const s = d.session;
    this.meter = new ProgressMeter({
      type: s.type,
      baseline: this.guard(() => runBaseline(d.db, s.projectId, s.type)) ?? null,
      previous: s.progress,
      write: (progress) => this.guard(() => updateSession(d.db, s.id, { progress })),
    });
    this.meter.begin();
  }

  onEvent(e: AgentEventInput): void {
    this.meter.onEvent(e);
  }

  /** The run completed: its measure is kept for the estimates of later runs of its type. */
  keepMeasure(): void {
    const s = this.d.session;
    const m = { ...this.meter.measure, durationMs: Date.now() - this.start };
    this.guard(() =>
      recordRunMeasure(this.d.db, { projectId: s.projectId, sessionId: s.id, type: s.type, runtime: s.runtime, ...m }),
    );
  }

  /** Bookkeeping never stops a run: a failure is logged and the run goes on. */
  private guard<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (err) {
      this.d.log.warn('recording the progress failed', { err });
      return undefined;
    }
  }
}
