// Progress of running agents with the real claude against the stand-in: a TodoWrite list (claude
// with CLAUDE_CODE_ENABLE_TASKS=false, as docs/claude-versions.md says) drives `2/5` in `klaude
// sessions` and `--json`; claude's default task tools (TaskCreate/TaskUpdate) drive `1/3`; without
// a list, the estimate against the medians of the type's completed runs (`~50 %`), and an honest
// `?` before there are enough of them.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/mock-anthropic.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { READY, startKlaude, submit } from './supervisor-helpers.js';
import type { PtySession } from '../support/pty-driver.js';

/** The text of the conversation's first user message: which job this request belongs to. */
function job(r: RecordedRequest): string {
  const first = (r.body?.messages ?? []).find((m: { role: string }) => m.role === 'user');
  const c = first?.content;
  const text =
    typeof c === 'string' ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('') : '';
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
}
const turns = (r: RecordedRequest): number =>
  (r.body?.messages ?? []).filter((m: { role: string }) => m.role === 'assistant').length;

/** A Bash call that blocks until `go` exists in the project: the agent is running meanwhile. */
const blockOn = (dir: string) => ({
  bash: { command: `while [ ! -f ${join(dir, 'go')} ]; do sleep 0.1; done; echo went`, description: 'wait' },
});

const todos = (done: number, total: number) => ({
  todos: Array.from({ length: total }, (_, i) => ({
    content: `step ${i + 1}`,
    activeForm: `doing step ${i + 1}`,
    status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
  })),
});

const fx = useAgentHomes({
  responder: (r) => {
    const j = job(r);
    const n = turns(r);
    const dir = /in (\S+)$/.exec(j)?.[1] ?? '/nonexistent';
    if (j.startsWith('todo job')) {
      if (n === 0) return { toolUse: { name: 'TodoWrite', input: todos(2, 5) } };
      if (n === 1) return blockOn(dir);
      return { text: 'all done' };
    }
    if (j.startsWith('task job') || j.startsWith('itask job')) {
      const calls = [
        { toolUse: { name: 'TaskCreate', input: { subject: 'one', description: 'first task' } } },
        { toolUse: { name: 'TaskCreate', input: { subject: 'two', description: 'second task' } } },
        { toolUse: { name: 'TaskCreate', input: { subject: 'three', description: 'third task' } } },
        { toolUse: { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } } },
        blockOn(dir),
      ];
      return calls[n] ?? { text: 'tasks done' };
    }
    if (j.startsWith('quick job'))
      return n < 4 ? { bash: { command: 'true', description: 'step' } } : { text: 'done!' };
    if (j.startsWith('slow job'))
      return n === 0 ? { bash: { command: 'true', description: 'step' } } : n === 1 ? blockOn(dir) : { text: 'done!' };
    return { text: `Reply to: ${r.prompt}` };
  },
});

interface Row {
  id: string;
  status: string;
  activity: string | null;
  progress: { kind: string; done: number | null; total: number | null; percent: number | null; basis: string } | null;
  children: Row[];
}
const flat = (rows: Row[]): Row[] => rows.flatMap((r) => [r, ...flat(r.children)]);

async function rowOf(h: AgentHome, id: string): Promise<Row | undefined> {
  const r = await h.k(['sessions', '--json']);
  return flat(JSON.parse(r.stdout) as Row[]).find((x) => x.id === id);
}

async function startDetached(h: AgentHome, type: string, prompt: string): Promise<string> {
  const r = await h.k(['start', type, prompt, '--detach', '--json']);
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
}

/** Wait (polling `sessions --json`, generously) until the row's progress is `want`. */
async function progressBecomes(
  h: AgentHome,
  id: string,
  want: (p: Row['progress']) => boolean,
  blocked = false,
): Promise<Row> {
  let row: Row | undefined;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    row = await rowOf(h, id);
    if (row && row.status === 'running' && want(row.progress) && (!blocked || row.activity?.startsWith('Bash: while')))
      return row;
    await new Promise((r) => setTimeout(r, 200));
  }
  const log = (row as { logPath?: string } | undefined)?.logPath;
  throw new Error(
    `progress of ${id} never matched; last: ${JSON.stringify(row)}\n${log ? readFileSync(log, 'utf8') : ''}`,
  );
}

const home = (env: Record<string, string> = {}) =>
  fx.home({ prefix: 'klaude-progress-', config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 60_000, env });

describe('progress (real claude)', () => {
  it('a TodoWrite list drives 2/5 in sessions and --json, and goes when the run ends', async () => {
    // TodoWrite is claude's list only with its task tools off (and, for 2.1.332 headless, todo tools on).
    const h = home({ CLAUDE_CODE_ENABLE_TASKS: 'false', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' });
    const id = await startDetached(h, 'general', `todo job in ${h.projectDir}`);
    const row = await progressBecomes(h, id, (p) => p?.kind === 'todo', true);
    expect(row.progress).toEqual({ kind: 'todo', done: 2, total: 5, percent: 40, basis: 'its todo list (TodoWrite)' });
    const table = await h.k(['sessions']);
    expect(table.stdout).toMatch(new RegExp(`${id.slice(-8)}.* 2/5 Bash: while`));
    writeFileSync(join(h.projectDir, 'go'), '');
    expect((await h.k(['wait', id])).code).toBe(0);
    // Not running: no progress shown.
    expect((await rowOf(h, id))!.progress).toBeNull();
    expect((await h.k(['sessions'])).stdout).not.toContain('2/5');
  });

  it("claude's task tools (TaskCreate/TaskUpdate) drive 1/3", async () => {
    // 2.1.197 has them by default; 2.1.332 headless only with todo tools on (else the calls are refused, and count for nothing).
    const h = home({ CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' });
    const id = await startDetached(h, 'general', `task job in ${h.projectDir}`);
    const row = await progressBecomes(h, id, (p) => p?.kind === 'todo' && p.total === 3 && p.done === 1, true);
    expect(row.progress!.basis).toBe('its todo list (TaskCreate/TaskUpdate)');
    expect((await h.k(['sessions'])).stdout).toMatch(/ 1\/3 Bash: while/);
    writeFileSync(join(h.projectDir, 'go'), '');
    expect((await h.k(['wait', id])).code).toBe(0);
  });

  it('without a list: ? until the type has completed runs, then ~50 % against their median', async () => {
    const h = home();
    // No completed run of `general` yet: an honest ?.
    const first = await startDetached(h, 'general', `slow job in ${h.projectDir}`);
    const none = await progressBecomes(h, first, (p) => p?.kind === 'none', true);
    expect(none.progress!.basis).toBe('no completed run of general in this project yet');
    expect((await h.k(['sessions'])).stdout).toMatch(new RegExp(`${first.slice(-8)}.* \\? Bash: while`));
    writeFileSync(join(h.projectDir, 'go'), '');
    expect((await h.k(['wait', first])).code).toBe(0);
    // Three completed runs of four tool calls each (and the slow one's two): median 4.
    for (let i = 0; i < 3; i++) {
      const id = await startDetached(h, 'general', `quick job ${i}`);
      expect((await h.k(['wait', id])).code).toBe(0);
    }
    const dir = join(h.projectDir, 'second');
    mkdirSync(dir);
    const id = await startDetached(h, 'general', `slow job in ${dir}`);
    // Two tool calls of a median of four (the blocking one is under way); no text yet.
    const row = await progressBecomes(h, id, (p) => p?.kind === 'estimate' && p.percent === 50, true);
    expect(row.progress!.basis).toBe('median of 4 runs of general: 4 tool calls, 5 characters of output');
    expect((await h.k(['sessions'])).stdout).toMatch(new RegExp(`${id.slice(-8)}.* ~50 % Bash: while`));
    writeFileSync(join(dir, 'go'), '');
    expect((await h.k(['wait', id])).code).toBe(0);
  });

  it("an interactive claude's task list, from its PostToolUse hook, drives 1/3 on the root's row while the turn runs", async () => {
    // 2.1.332 refuses its task tools to an interactive session too unless todo tools are on (for
    // the stand-in's model, claude-opus-5-5); 2.1.197 offers them by default.
    const h = fx.home({ supervisor: true, config: false, env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' } });
    const dir = join(h.projectDir, 'gate');
    mkdirSync(dir);
    const term: PtySession = startKlaude(h, [], { cols: 160, rows: 40 });
    try {
      await term.waitForText(READY, { timeoutMs: 60_000 });
      await submit(term, `itask job in ${dir}`);
      let root: Row | undefined;
      await expect
        .poll(
          async () => {
            root = flat(JSON.parse((await h.k(['sessions', '--json'])).stdout) as Row[]).find(
              (r) => !r.id.includes(' '),
            );
            return root?.progress;
          },
          { timeout: 60_000, interval: 250 },
        )
        .toMatchObject({ kind: 'todo', done: 1, total: 3, basis: 'its todo list (TaskCreate/TaskUpdate)' });
      expect(root!.status).toBe('running');
      expect((await h.k(['sessions'])).stdout).toMatch(/ 1\/3 /);
      writeFileSync(join(dir, 'go'), '');
      await term.waitForText('tasks done', { timeoutMs: 60_000 });
      // Between turns: nothing shown.
      await expect
        .poll(async () => flat(JSON.parse((await h.k(['sessions', '--json'])).stdout) as Row[])[0]!.progress, {
          timeout: 30_000,
        })
        .toBeNull();
    } finally {
      await term.dispose();
    }
  });
});
