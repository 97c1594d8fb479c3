// Spend limits with the real claude against the stand-in: an agent whose first turn spent its
// budget is refused its next turn (`klaude message` says over budget, no request reaches the
// model), a sub-agent started under it is stopped before its first turn (the parent's limit
// covers its tree), and after `klaude budget` raises the limit the message goes on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/client.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockAnthropic;
let home: TempHome | undefined;

beforeAll(async () => {
  mock = await startMockAnthropic({ responder: (r) => ({ text: `Reply to: ${r.prompt}` }) });
});

afterEach(() => {
  if (home) {
    const db = openDb(home.klaudeHome);
    killRuntimeGroups(db.sqlite);
    db.close();
  }
  home?.cleanup();
  home = undefined;
});

afterAll(async () => {
  await mock?.close();
});

describe('budgets (real claude)', () => {
  it('stops an agent over its budget before its next turn and its tree; raised, it goes on', async () => {
    const h = (home = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-budget-' }));
    writeFileSync(join(h.klaudeHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\nnotify:\n  desktop: false\n`);
    const k = (args: string[], env: Record<string, string> = {}) =>
      runKlaude(args, { env: { ...h.env, ...env }, cwd: h.projectDir, timeoutMs: 90_000 });

    const started = await k(['start', 'general', 'first job', '--budget', '0.000001', '--json']);
    expect(started.stderr).toBe('');
    const id = (JSON.parse(started.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    const first = await k(['wait', id]);
    expect(first.code).toBe(0);
    const spent = JSON.parse((await k(['budget', id, '--json'])).stdout) as { budgetUsd: number; spentUsd: number };
    expect(spent.budgetUsd).toBe(0.000001);
    expect(spent.spentUsd).toBeGreaterThan(0.000001);

    // Its next turn is refused: nothing reaches the model.
    const refused = await k(['message', id, 'second job']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('over budget: spent $');
    expect(refused.stderr).toContain(`klaude budget ${id.slice(-8)} <usd>`);
    expect(mock.mainRequests().some((r) => JSON.stringify(r.body).includes('second job'))).toBe(false);

    // A sub-agent started under it: the parent's limit covers it, stopped before its first turn.
    const child = await k(['start', 'general', 'child job', '--json'], { KLAUDE_SESSION_ID: id });
    const childId = (JSON.parse(child.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    const childEnd = await k(['wait', childId]);
    expect(childEnd.code).toBe(1);
    expect(childEnd.stdout).toContain('over budget');
    expect(childEnd.stdout).toContain(`${id.slice(-8)}'s limit`);
    expect(mock.mainRequests().some((r) => JSON.stringify(r.body).includes('child job'))).toBe(false);

    // Raised, the message goes on.
    expect((await k(['budget', id, '5'])).stdout).toMatch(/budget \$5\.00, spent \$0\.\d{4} with its sub-agents\n$/);
    const sent = await k(['message', id, 'second job']);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect((await k(['wait', id])).code).toBe(0);
    expect(mock.mainRequests().some((r) => JSON.stringify(r.body).includes('second job'))).toBe(true);
  });
});
