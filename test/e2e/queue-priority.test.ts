// Queue priorities with the real claude against the stand-in (agents.maxRunning: 1): six agents
// started behind a busy one with --priority high/normal/low (or a definition's priority:) wait in priority order (FIFO within a
// level), `klaude queue` shows that order, `klaude queue move` changes it, and they reach the
// model one at a time in the order shown.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    const m = /^block job in (\S+)$/.exec(r.prompt);
    if (m && !r.isToolResult)
      return { bash: { command: `while [ ! -f ${m[1]}/go ]; do sleep 0.1; done; echo went`, description: 'wait' } };
    return { text: r.isToolResult ? 'unblocked' : `Reply to: ${r.prompt}` };
  },
});

async function start(
  h: AgentHome,
  prompt: string,
  priority?: string,
  type = 'general',
): Promise<{ id: string; out: string }> {
  const r = await h.k(['start', type, prompt, '--detach', ...(priority ? ['--priority', priority] : [])]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const short = /^started (\w{8})/.exec(r.stdout)![1]!;
  const rows = JSON.parse((await h.k(['sessions', '--json'])).stdout) as { id: string }[];
  return { id: rows.find((x) => x.id.endsWith(short))!.id, out: r.stdout };
}

interface QueueJson {
  running: number;
  maxRunning: number | null;
  queue: { position: number; id: string; priority: string; title: string }[];
}

describe('queue priority (real claude, agents.maxRunning: 1)', () => {
  it('six queued agents wait and start in priority order, FIFO within a level; queue move reorders them', async () => {
    const h = fx.home({
      prefix: 'klaude-qprio-',
      config: 'agents:\n  maxRunning: 1\n  allowedTools: [Bash]\n',
      timeoutMs: 60_000,
    });
    const gate = join(h.projectDir, 'gate');
    mkdirSync(gate);
    // j5's priority comes from its definition (`priority: high`), the others' from --priority. The
    // definition is written before any agent runs: while a sandboxed Bash call of claude runs, its
    // sandbox holds placeholders at the project's missing .claude/ paths (.claude/agents among them),
    // and a directory made under one makes that call fail (docs/claude-versions.md).
    mkdirSync(join(h.projectDir, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(h.projectDir, '.claude', 'agents', 'urgent.md'), '---\npriority: high\n---\nBe quick.\n');
    const blocker = await start(h, `block job in ${gate}`);
    // The blocker holds the one slot while its Bash call waits.
    await expect
      .poll(async () => (await h.k(['sessions'])).stdout, { timeout: 60_000, interval: 200 })
      .toMatch(new RegExp(`${blocker.id.slice(-8)}\\s+running.*Bash: while`));

    const plan: [string, string][] = [
      ['j1', 'normal'],
      ['j2', 'low'],
      ['j3', 'high'],
      ['j4', 'normal'],
      ['j5', 'high'],
      ['j6', 'low'],
    ];
    const jobs = new Map<string, string>();
    for (const [name, prio] of plan) {
      const s =
        name === 'j5'
          ? await start(h, `${name} job`, undefined, 'urgent')
          : await start(h, `${name} job`, prio === 'normal' ? undefined : prio);
      jobs.set(name, s.id);
      expect(s.out).toMatch(/: queued #\d/);
      if (prio !== 'normal') expect(s.out).toContain(`(${prio} priority)`);
    }
    const nameOf = (id: string) => [...jobs].find(([, v]) => v === id)![0];
    const queue = async (): Promise<QueueJson> => JSON.parse((await h.k(['queue', '--json'])).stdout) as QueueJson;
    let q = await queue();
    expect(q).toMatchObject({ running: 1, maxRunning: 1 });
    expect(q.queue.map((e) => `${nameOf(e.id)}:${e.priority}`)).toEqual([
      'j3:high',
      'j5:high',
      'j1:normal',
      'j4:normal',
      'j2:low',
      'j6:low',
    ]);
    expect(q.queue.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
    // The listing says the same places.
    const table = (await h.k(['sessions'])).stdout;
    expect(table).toMatch(new RegExp(`${jobs.get('j3')!.slice(-8)}\\s+queued #1`));
    expect(table).toMatch(new RegExp(`${jobs.get('j6')!.slice(-8)}\\s+queued #6`));

    // j6 to the top: ahead of the high ones, so high itself; j1 low: behind j4, first of the lows (queued before j2).
    const top = await h.k(['queue', 'move', jobs.get('j6')!.slice(-8), '--top']);
    expect(top.stdout).toBe(
      `${jobs.get('j6')!.slice(-8)} moved from #6 to #1 in the run queue (priority low → high)\n`,
    );
    const low = await h.k(['queue', 'move', jobs.get('j1')!.slice(-8), '--priority', 'low', '--json']);
    expect(JSON.parse(low.stdout)).toMatchObject({ from: 4, to: 5, priority: 'low', was: 'normal', started: [] });
    q = await queue();
    const order = q.queue.map((e) => nameOf(e.id));
    expect(order).toEqual(['j6', 'j3', 'j5', 'j4', 'j1', 'j2']);
    const shown = (await h.k(['queue'])).stdout;
    expect(shown).toMatch(/^6 queued, served in this order; 1 running of 1 \(agents\.maxRunning\)\n#\s+ID\s+PRIORITY/);
    expect(shown).toMatch(new RegExp(`\\n1\\s+${jobs.get('j6')!.slice(-8)}\\s+high\\s+general\\s+claude`));

    // Released, they run one at a time in that order.
    writeFileSync(join(gate, 'go'), '');
    const waited = await h.k(['wait', ...jobs.values()], { timeoutMs: 240_000 });
    expect(waited.code).toBe(0);
    const firstSeen = (name: string) => fx.mock.mainRequests().find((r) => r.prompt === `${name} job`)!.index;
    const reached = [...jobs.keys()].sort((a, b) => firstSeen(a) - firstSeen(b));
    expect(reached).toEqual(order);
    expect((await queue()).queue).toEqual([]);
    expect((await h.k(['queue'])).stdout).toBe('the run queue is empty; 0 running of 1 (agents.maxRunning)\n');
  }, 300_000);
});
