// A budget stops a running turn, with the real claude against the stand-in: a headless agent's one
// turn calls Bash again and again (each model request costs about the same), and its `--budget`
// is crossed after a couple of requests. The runtime sees the cost grow from the usage claude
// streams per message, interrupts the turn there (not at its end), writes why in the log and the
// row (`over budget`), and tells `over_budget` once; the next turn is refused as before.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { formatCost } from '../../src/logs/format.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { useAgentHomes } from './agent-home.js';

const STEPS = 20;
const fx = useAgentHomes({
  responder: (r) => {
    // Step n: one Bash call per model request, for STEPS requests; only then an answer.
    const done = r.toolResults.length > 0 ? Number(/step-(\d+)/.exec(r.toolResults[0]!.content)?.[1] ?? 0) : 0;
    if (done >= STEPS) return { text: 'All steps done.' };
    return { text: `Step ${done + 1}.`, bash: { command: `echo step-${done + 1}`, description: 'a step' } };
  },
});

describe('a budget crossed during a turn (real claude)', () => {
  it('interrupts the turn midway, says why in the log and the row, tells over_budget once', async () => {
    const h = fx.home({ prefix: 'klaude-budget-turn-', timeoutMs: 120_000 });
    // Every event told goes to a file, one JSON line each.
    writeFileSync(
      join(h.klaudeHome, 'config.yaml'),
      `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  allowedTools: [Bash]\nnotify:\n  desktop: false\n` +
        `  command: 'cat >> "$KLAUDE_HOME/told.ndjson"; echo >> "$KLAUDE_HOME/told.ndjson"'\n`,
    );
    // A request's price depends on claude's own system prompt (2.1.332's is several times 2.1.197's):
    // a run without a limit prices one request first, and the limit is two and a half of them.
    const atProbe = fx.mock.mainRequests().length;
    const probe = await h.k(['start', 'general', 'probe every step', '--json']);
    const probeId = (JSON.parse(probe.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    expect((await h.k(['wait', probeId])).code).toBe(0);
    const costOf = (sid: string): number => {
      const d = new Database(join(h.klaudeHome, 'sessions.db'), { readonly: true });
      try {
        return (d.prepare('SELECT cost_usd FROM sessions WHERE id = ?').get(sid) as { cost_usd: number }).cost_usd;
      } finally {
        d.close();
      }
    };
    const perRequest = costOf(probeId) / (fx.mock.mainRequests().length - atProbe);
    const limit = (perRequest * 2.5).toFixed(4);
    const limitRe = formatCost(Number(limit)).slice(1).replace('.', '\\.');
    const before = fx.mock.mainRequests().length;
    const started = await h.k(['start', 'general', 'do every step', '--budget', limit, '--json']);
    expect(started.stderr).toBe('');
    const id = (JSON.parse(started.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    const waited = await h.k(['wait', id]);
    expect(waited.code).not.toBe(0);

    // Stopped midway: more than one request (it was under the limit at first), far fewer than STEPS.
    const requests = fx.mock.mainRequests().length - before;
    expect(requests).toBeGreaterThan(1);
    expect(requests).toBeLessThan(6);

    const db = new Database(join(h.klaudeHome, 'sessions.db'), { readonly: true });
    const row = db.prepare('SELECT status, error, cost_usd FROM sessions WHERE id = ?').get(id) as {
      status: string;
      error: string;
      cost_usd: number;
    };
    db.close();
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(
      new RegExp(`^over budget: spent \\$\\d+\\.\\d+ of \\$${limitRe}; \`klaude budget \\w{8} <usd>\` raises it$`),
    );
    expect(row.cost_usd).toBeGreaterThanOrEqual(Number(limit));

    const logs = (await h.k(['logs', id])).stdout;
    expect(logs).toMatch(new RegExp(`over budget: spent \\$\\d+\\.\\d+ of \\$${limitRe}.*: the turn is interrupted`));
    expect(logs).not.toContain('All steps done.');

    // Told once, as over_budget (not also as a failure).
    const told = readFileSync(join(h.klaudeHome, 'told.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => (JSON.parse(l) as { event: string }).event);
    // (the probe's run told its end first)
    expect(told).toEqual(['done', 'over_budget']);

    // The next turn is refused before it starts.
    const refused = await h.k(['message', id, 'one more step']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('over budget: spent $');
  });
});
