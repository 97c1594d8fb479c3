// Spend limits with the real claude against the stand-in: the limit comes from --budget, else the
// agent definition's budgetUsd, else config agents.budgetUsd; an agent whose first turn crosses its
// budget is stopped in it (test/e2e/budget-midturn.test.ts has the details) and refused its next turn (`klaude message` says over budget, no request reaches the
// model), a sub-agent started under it waits in the queue (the parent's limit covers its tree,
// `sessions` says why) and after `klaude budget` raises the limit it starts and the message goes on.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes({ responder: (r) => ({ text: `Reply to: ${r.prompt}` }) });

describe('budgets (real claude)', () => {
  it('stops an agent over its budget before its next turn and its tree; raised, it goes on', async () => {
    const h = fx.home({ prefix: 'klaude-budget-', config: 'agents:\n  budgetUsd: 7\n', timeoutMs: 90_000 });
    mkdirSync(join(h.projectDir, '.claude', 'agents'), { recursive: true });
    writeFileSync(join(h.projectDir, '.claude', 'agents', 'capped.md'), '---\nbudgetUsd: 0.000001\n---\nBe brief.\n');
    const k = (args: string[], env: Record<string, string> = {}) => h.k(args, { env });
    const idOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    const budgetOf = async (sid: string) =>
      JSON.parse((await k(['budget', sid, '--json'])).stdout) as { budgetUsd: number; spentUsd: number };

    // --budget wins over the definition's budgetUsd (queued behind nothing: it runs, unwatched).
    const flagged = await k(['start', 'capped', 'flagged job', '--budget', '3', '--detach', '--json']);
    expect((await budgetOf(idOf(flagged))).budgetUsd).toBe(3);

    // The definition's budgetUsd wins over config agents.budgetUsd.
    const started = await k(['start', 'capped', 'first job', '--json']);
    expect(started.stderr).toBe('');
    const id = idOf(started);
    const first = await k(['wait', id]);
    expect(first.code).not.toBe(0);
    expect(first.stdout).toContain('over budget: spent $');
    const spent = await budgetOf(id);
    expect(spent.budgetUsd).toBe(0.000001);
    expect(spent.spentUsd).toBeGreaterThan(0.000001);

    // Its next turn is refused: nothing reaches the model.
    const refused = await k(['message', id, 'second job']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('over budget: spent $');
    expect(refused.stderr).toContain(`klaude budget ${id.slice(-8)} <usd>`);
    expect(fx.mock.mainRequests().some((r) => JSON.stringify(r.body).includes('second job'))).toBe(false);

    // A sub-agent started under it: the parent's limit covers it, so it waits in the queue.
    const child = await k(['start', 'general', 'child job', '--detach'], { KLAUDE_SESSION_ID: id });
    expect(child.stdout).toContain(`queued #1, over budget, starts when \`klaude budget ${id.slice(-8)} <usd>\``);
    const childId = (
      JSON.parse((await k(['sessions', '--json'])).stdout) as { id: string; children: { id: string }[] }[]
    ).find((r) => r.id === id)!.children[0]!.id;
    const listed = JSON.parse((await k(['sessions', '--json'])).stdout) as {
      id: string;
      children: { status: string; queuedFor: string | null }[];
    }[];
    expect(listed.find((r) => r.id === id)!.children[0]).toMatchObject({ status: 'queued', queuedFor: 'over budget' });
    expect((await k(['sessions'])).stdout).toContain('queued: over budget');
    // Its own limit is the config default (it had no flag and general has no budgetUsd).
    expect((await budgetOf(childId)).budgetUsd).toBe(7);
    expect(fx.mock.mainRequests().some((r) => JSON.stringify(r.body).includes('child job'))).toBe(false);

    // Raised: the queued child starts, and the message goes on.
    const raised = await k(['budget', id, '5']);
    expect(raised.stdout).toMatch(/budget \$5\.00, spent \$0\.\d{4} with its sub-agents\n/);
    expect(raised.stdout).toContain(`started from the queue: ${childId.slice(-8)}`);
    expect((await k(['wait', childId])).code).toBe(0);
    expect(fx.mock.mainRequests().some((r) => JSON.stringify(r.body).includes('child job'))).toBe(true);
    const sent = await k(['message', id, 'second job']);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect((await k(['wait', id])).code).toBe(0);
    expect(fx.mock.mainRequests().some((r) => JSON.stringify(r.body).includes('second job'))).toBe(true);
  });
});
