// What it all cost, with the real claude against the stand-in: an interactive session's tokens come
// from Claude's transcript (its turns pass through no klaude runtime), and in `klaude ui` a
// parent agent's row shows its own cost plus its child's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { formatCost, formatCount } from '../../src/ui/text.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { READY, runResponder, sessions, startKlaude, submit, waitForDb } from './supervisor-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: runResponder });
let home: AgentHome;
let term: PtySession | undefined;

beforeAll(() => {
  home = fx.home({ supervisor: true, env: { CI: undefined } }); // Ink must run interactive in the PTY
});
afterAll(async () => {
  await term?.dispose();
});

describe('usage', () => {
  it("sums an interactive session's tokens from its transcript when a turn ends", async () => {
    term = startKlaude(home);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await submit(term, 'hello for the tokens');
    await term.waitForText('Reply to: hello for the tokens', { timeoutMs: 45_000 });
    const root = await waitForDb('tokens from the transcript', () => {
      const r = sessions(home).find((s) => s.type === 'tui');
      return r && (r as unknown as { tokens_out: number | null }).tokens_out ? r : undefined;
    });
    const row = root as unknown as { tokens_in: number; tokens_out: number };
    // The stand-in's usage for that one reply, counted once (claude writes an entry per block).
    const replies = fx.mock.mainRequests().filter((r) => r.prompt === 'hello for the tokens');
    expect(replies.length).toBe(1);
    expect(row.tokens_in).toBeGreaterThan(0);
    expect(row.tokens_out).toBeGreaterThan(0);
    await submit(term, '/exit');
    await term.exited;
  }, 120_000);

  it("shows a parent agent's own cost plus its child's on its row in klaude ui", async () => {
    const parent = await home.k(['start', 'general', 'parent task'], { timeoutMs: 120_000 });
    expect(parent.code, parent.stderr).toBe(0);
    const parentId = sessions(home).find((s) => s.type === 'general')!.id;
    const child = await home.k(['start', 'general', 'child task'], {
      env: { KLAUDE_SESSION_ID: parentId },
      timeoutMs: 120_000,
    });
    expect(child.code, child.stderr).toBe(0);
    const rows = sessions(home) as unknown as {
      id: string;
      parent_id: string | null;
      cost_usd: number | null;
      tokens_in: number;
      tokens_out: number;
    }[];
    const p = rows.find((r) => r.id === parentId)!;
    const c = rows.find((r) => r.parent_id === parentId)!;
    expect(p.cost_usd).toBeGreaterThan(0);
    expect(c.cost_usd).toBeGreaterThan(0);
    const sum = formatCost(p.cost_usd! + c.cost_usd!);
    const tokens = formatCount(p.tokens_in + p.tokens_out + c.tokens_in + c.tokens_out);
    // The row can tell the sum from the parent's own figures (else this checks nothing).
    expect(tokens).not.toBe(formatCount(p.tokens_in + p.tokens_out));

    term = spawnPty(process.execPath, [KLAUDE_CLI, 'ui'], { cwd: home.projectDir, env: home.env, cols: 140, rows: 30 });
    await term.waitForText(shortId(c.id), { timeoutMs: 30_000 });
    // The parent is selected, so its id is in the log pane's title too: take the tree row.
    const parentRow = () => term!.lines().find((l) => l.includes(shortId(parentId)) && !l.includes('╭')) ?? '';
    expect(parentRow()).toMatch(new RegExp(`${tokens.replace('.', '\\.')}\\s+\\${sum.replace('.', '\\.')}`));
    expect(term.lines()[0]).toMatch(/ · \$\d/); // the project's total in the header
    term.write('q');
    await term.exited;
  }, 240_000);
});
