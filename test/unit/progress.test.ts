// How far along an agent is (core/progress.ts, runtime/progress-meter.ts, hooks/hook-progress.ts):
// todo lists of every CLI, claude's task tools from the stream and from the hook, refused calls,
// the estimate against medians, what a row shows, and codex's plan updates as calls of their own.
import { describe, expect, it } from 'vitest';
import {
  applyTaskCall,
  estimate,
  formatProgress,
  median,
  progressLabel,
  taskCount,
  todoListOf,
  type ProgressRecord,
} from '../../src/core/progress.js';
import { ProgressMeter } from '../../src/runtime/progress-meter.js';
import { progressAfterTool, progressAtTurnStart } from '../../src/hooks/hook-progress.js';
import { createCodexNormaliser } from '../../src/adapters/codex/normaliser.js';
import type { AgentEventInput } from '../../src/core/events.js';

const list = (...statuses: string[]) => ({ todos: statuses.map((status, i) => ({ content: `t${i}`, status })) });

describe('todo lists', () => {
  it('reads the list tools of claude, gemini, opencode and codex; cancelled items are no work', () => {
    expect(todoListOf('TodoWrite', list('completed', 'in_progress', 'pending'))).toEqual({
      done: 1,
      total: 3,
      tool: 'TodoWrite',
    });
    expect(todoListOf('write_todos', list('completed', 'cancelled', 'pending'))).toEqual({
      done: 1,
      total: 2,
      tool: 'write_todos',
    });
    expect(todoListOf('todowrite', list('completed', 'completed'))).toMatchObject({ done: 2, total: 2 });
    expect(
      todoListOf('todo_list', {
        items: [
          { text: 'a', completed: true },
          { text: 'b', completed: false },
        ],
      }),
    ).toMatchObject({
      done: 1,
      total: 2,
    });
    expect(todoListOf('Bash', { command: 'ls' })).toBeNull();
    expect(todoListOf('TodoWrite', { todos: 'nope' })).toBeNull();
  });

  it("claude's task tools: the stream's result text and the hook's response both name the task", () => {
    let t = applyTaskCall({}, 'TaskCreate', { subject: 'a' }, { output: 'Task #1 created successfully: a' })!;
    t = applyTaskCall(t, 'TaskCreate', { subject: 'b' }, { response: { task: { id: '2', subject: 'b' } } })!;
    t = applyTaskCall(t, 'TaskCreate', { subject: 'c' }, { output: 'Task #3 created successfully: c' })!;
    t = applyTaskCall(t, 'TaskUpdate', { taskId: '1', status: 'completed' }, { output: 'Updated task #1 status' })!;
    expect(taskCount(t)).toMatchObject({ done: 1, total: 3 });
    t = applyTaskCall(t, 'TaskUpdate', { taskId: '3', status: 'deleted' }, {})!;
    expect(taskCount(t)).toMatchObject({ done: 1, total: 2 });
    // An update that changes no status (a subject) is no change of the list.
    expect(applyTaskCall(t, 'TaskUpdate', { taskId: '2', subject: 'x' }, {})).toBeNull();
    // The hook's statusChange is read when the input has none.
    expect(
      applyTaskCall(
        t,
        'TaskUpdate',
        { taskId: '2' },
        { response: { statusChange: { from: 'pending', to: 'completed' } } },
      ),
    ).toEqual({
      '1': 'completed',
      '2': 'completed',
    });
  });
});

describe('estimate', () => {
  const b = { runs: 5, toolCalls: 8, outputChars: 1000 };
  it('is none with fewer than three completed runs, saying why', () => {
    expect(estimate('general', { toolCalls: 3, outputChars: 0 }, null)).toMatchObject({
      kind: 'none',
      basis: 'no completed run of general in this project yet',
    });
    expect(estimate('general', { toolCalls: 3, outputChars: 0 }, { ...b, runs: 2 }).basis).toBe(
      '2 completed runs of general in this project; 3 needed',
    );
  });
  it('takes whichever measure has gone further, never past 95 %', () => {
    expect(estimate('general', { toolCalls: 4, outputChars: 100 }, b)).toMatchObject({ kind: 'estimate', percent: 50 });
    expect(estimate('general', { toolCalls: 1, outputChars: 700 }, b).percent).toBe(70);
    expect(estimate('general', { toolCalls: 30, outputChars: 0 }, b).percent).toBe(95);
    expect(
      estimate('writer', { toolCalls: 0, outputChars: 500 }, { runs: 3, toolCalls: 0, outputChars: 1000 }).percent,
    ).toBe(50);
  });
  it('medians', () => {
    expect(median([])).toBe(0);
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it('what a row shows: 3/7, ~40 %, ?; an interactive session only its list', () => {
    const todo = { kind: 'todo', done: 3, total: 7, percent: 43, basis: '' } as const;
    const est = { kind: 'estimate', done: null, total: null, percent: 40, basis: '' } as const;
    const none = { kind: 'none', done: null, total: null, percent: null, basis: '' } as const;
    expect([todo, est, none].map(formatProgress)).toEqual(['3/7', '~40 %', '?']);
    expect(progressLabel(est, 'general')).toBe('~40 %');
    expect(progressLabel(none, 'tui')).toBe('');
    expect(progressLabel(todo, 'tui')).toBe('3/7');
    expect(progressLabel(null, 'general')).toBe('');
  });
});

function meter(previous: ProgressRecord | null = null) {
  const writes: ProgressRecord[] = [];
  const m = new ProgressMeter({
    type: 'general',
    baseline: { runs: 3, toolCalls: 4, outputChars: 100 },
    previous,
    write: (p) => writes.push(p),
  });
  m.begin();
  const feed = (...es: AgentEventInput[]) => es.forEach((e) => m.onEvent(e));
  return { m, writes, feed };
}
const call = (id: string, name: string, input: unknown): AgentEventInput => ({
  type: 'tool_call',
  id,
  name,
  summary: '',
  input,
});
const result = (id: string, isError = false, output = ''): AgentEventInput => ({
  type: 'tool_result',
  id,
  isError,
  output,
});

describe('the runtime meter', () => {
  it('a refused TodoWrite changes nothing; an accepted one is the list; list tools are no work', () => {
    const { m, writes, feed } = meter();
    expect(writes).toHaveLength(1);
    expect(m.current()).toMatchObject({ kind: 'estimate', percent: 0 });
    feed(call('a', 'TodoWrite', list('completed', 'pending')), result('a', true, 'No such tool available'));
    expect(m.current().kind).toBe('estimate');
    feed(call('b', 'Bash', { command: 'ls' }), result('b'));
    expect(m.current()).toMatchObject({ kind: 'estimate', percent: 25 });
    feed(call('c', 'TodoWrite', list('completed', 'completed', 'pending', 'pending', 'pending')), result('c'));
    expect(m.current()).toMatchObject({ kind: 'todo', done: 2, total: 5, basis: 'its todo list (TodoWrite)' });
    expect(m.measure).toEqual({ toolCalls: 1, outputChars: 0 });
    feed({ type: 'text', text: 'x'.repeat(40) });
    expect(m.measure.outputChars).toBe(40);
    // Written only when what a row shows changed.
    expect(writes.map(formatProgress)).toEqual(['~0 %', '~25 %', '2/5']);
  });

  it("codex's plan counts when it is seen; a task list goes on from an earlier run", () => {
    const { m, feed } = meter({
      kind: 'todo',
      done: 1,
      total: 2,
      percent: 50,
      basis: '',
      tasks: { '1': 'completed', '2': 'pending' },
    });
    expect(m.current()).toMatchObject({ kind: 'todo', done: 1, total: 2 });
    feed(call('t', 'TaskUpdate', { taskId: '2', status: 'completed' }), result('t', false, 'Updated task #2 status'));
    expect(m.current()).toMatchObject({ kind: 'todo', done: 2, total: 2 });
    const codex = meter();
    codex.feed(call('i1', 'todo_list', { items: [{ completed: true }, { completed: false }, { completed: false }] }));
    expect(codex.m.current()).toMatchObject({ kind: 'todo', done: 1, total: 3 });
  });

  it('a finished list of an earlier run is not this run’s', () => {
    const { m } = meter({ kind: 'todo', done: 2, total: 2, percent: 100, basis: '', tool: 'TodoWrite' });
    expect(m.current().kind).toBe('estimate');
  });
});

describe("an interactive claude's hook", () => {
  it('TodoWrite and task calls set the list; a new turn drops an old estimate but keeps the tasks', () => {
    const p1 = progressAfterTool(null, 'TaskCreate', { subject: 'a' }, { task: { id: '1', subject: 'a' } })!;
    const p2 = progressAfterTool(p1, 'TaskCreate', { subject: 'b' }, { task: { id: '2', subject: 'b' } })!;
    const p3 = progressAfterTool(p2, 'TaskUpdate', { taskId: '1', status: 'completed' }, { success: true })!;
    expect(JSON.parse(p3)).toMatchObject({ kind: 'todo', done: 1, total: 2 });
    expect(progressAfterTool(p3, 'Bash', { command: 'ls' }, {})).toBeUndefined();
    expect(JSON.parse(progressAfterTool(p3, 'TodoWrite', list('completed', 'pending', 'pending'), {})!)).toMatchObject({
      done: 1,
      total: 3,
      tasks: { '1': 'completed', '2': 'pending' },
    });
    // An open list stays for the next turn; an estimate left by a headless run does not.
    expect(progressAtTurnStart(p3)).toBeUndefined();
    const est = JSON.stringify({
      kind: 'estimate',
      done: null,
      total: null,
      percent: 60,
      basis: 'x',
      tasks: { '1': 'completed' },
    });
    expect(JSON.parse(progressAtTurnStart(est)!)).toMatchObject({ kind: 'none', tasks: { '1': 'completed' } });
  });
});

describe('codex plan updates', () => {
  it('each item.updated of a todo_list is a call and result of its own', () => {
    const n = createCodexNormaliser();
    const item = (done: boolean[]) => ({
      id: 'item_1',
      type: 'todo_list',
      items: done.map((c, i) => ({ text: `s${i}`, completed: c })),
    });
    n.line(JSON.stringify({ type: 'thread.started', thread_id: 'th' }));
    const started = n.line(JSON.stringify({ type: 'item.started', item: item([false, false]) }));
    expect(started).toMatchObject([{ type: 'tool_call', id: 'item_1', name: 'todo_list', summary: '2 todos, 0 done' }]);
    const updated = n.line(JSON.stringify({ type: 'item.updated', item: item([true, false]) }));
    expect(updated).toMatchObject([
      { type: 'tool_call', id: 'item_1~1', name: 'todo_list', summary: '2 todos, 1 done' },
      { type: 'tool_result', id: 'item_1~1', isError: false },
    ]);
    expect(n.line(JSON.stringify({ type: 'item.completed', item: item([true, true]) }))).toMatchObject([
      { type: 'tool_result', id: 'item_1' },
    ]);
  });
});
