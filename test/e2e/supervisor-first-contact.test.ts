// What a new user met around checkout (issue 26), with the real claude: the scrollback above
// `klaude: switched to …` and the screen after `klaude` ends hold klaude's way back, never claude's
// `claude --resume <uuid>`; `klaude checkout` with no id in a top-level agent goes back to where the
// foreground came from; `checkout <id> --force` keeps the words the agent had written so far.
import { existsSync, readFileSync } from 'node:fs';
import { Terminal } from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import type { Responder } from '../support/mock-anthropic.js';
import type { PtySession } from '../support/pty-driver.js';
import { until } from '../support/until.js';
import { readDb, READY, runResponder, sessions, startKlaude, submit, waitBelow } from './supervisor-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const readIfThere = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

const SLOW = 'slow-answer-please';
const PARTIAL = ['partial-line-one', 'partial-line-two', 'partial-line-three', 'never-reached-line'];
const responder: Responder = (req) => {
  if (!req.isToolResult && req.prompt.includes(SLOW))
    return { text: PARTIAL.map((l) => `${l}\n`).join(''), chunks: PARTIAL.length, delayMs: 5000 };
  return runResponder(req);
};

const fx = useAgentHomes({ responder });
let home: AgentHome;
let term: PtySession | undefined;

beforeAll(() => {
  home = fx.home({ supervisor: true, config: false });
});
afterAll(async () => {
  await term?.dispose();
});

/**
 * Everything the terminal kept, scrollback included, as a terminal that keeps a cleared screen in
 * its scrollback draws it (tmux, VTE: xterm.js's scrollOnEraseInDisplay).
 */
async function kept(raw: string, cols: number): Promise<string[]> {
  const t = new Terminal({ cols, rows: 40, scrollback: 5000, allowProposedApi: true, scrollOnEraseInDisplay: true });
  await new Promise<void>((r) => t.write(raw, r));
  const b = t.buffer.active;
  const out: string[] = [];
  for (let i = 0; i < b.length; i++) out.push(b.getLine(i)?.translateToString(true) ?? '');
  t.dispose();
  return out;
}

async function startedAgent(prompt: string): Promise<string> {
  const r = await home.k(['start', 'general', '-d', prompt]);
  expect(r.code, r.stderr).toBe(0);
  return sessions(home).find((s) => s.parent_id === null && s.type === 'general' && s.prompt === prompt)!.id;
}

describe('checkout as a new user meets it', () => {
  it('says only the klaude way back, and checkout with no id returns from a top-level agent', async () => {
    const agent = await startedAgent('top-level-marker-5');
    await until('the agent to finish', () => sessions(home).find((s) => s.id === agent)?.status === 'done', 45_000);
    const cols = 110;
    term = startKlaude(home, [], { cols, rows: 34 });
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const root = sessions(home).find((s) => s.type === 'tui')!.id;
    await submit(term, 'root-marker-9');
    await term.waitForText('Reply to: root-marker-9', { timeoutMs: 45_000 });

    await submit(term, `run: klaude checkout ${shortId(agent)}`);
    const switched = `klaude: switched to ${shortId(agent)} (general) — \`klaude checkout\` to go back`;
    await waitBelow(term, switched, ['Reply to: top-level-marker-5', READY]);
    let lines = await kept(term.rawOutput(), cols);
    const at = lines.findIndex((l) => l.startsWith('klaude: switched to'));
    expect(lines.slice(0, at).join('\n')).not.toMatch(/claude --resume|Resume this session/);

    // The agent has no parent: `klaude checkout` goes back to the root it was opened from.
    await submit(term, 'run: klaude checkout');
    await waitBelow(term, `klaude: switched to ${shortId(root)} (claude)`, ['Reply to: root-marker-9', READY]);

    await submit(term, '/exit');
    await term.waitForText(`klaude --resume ${shortId(root)}`, { timeoutMs: 30_000 });
    await term.exited;
    lines = await kept(term.rawOutput(), cols);
    expect(lines.join('\n')).not.toMatch(/claude --resume|Resume this session/);
    expect(lines.filter((l) => l.includes(`klaude --resume ${shortId(root)}`))).toHaveLength(1);
  });

  it('checkout --force of a streaming agent keeps the words written so far', async () => {
    await term?.dispose();
    term = startKlaude(home, [], { cols: 110, rows: 34 });
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const agent = await startedAgent(`${SLOW} now`);
    const log = readDb(
      home,
      (db) => (db.prepare('SELECT log_path FROM sessions WHERE id = ?').get(agent) as { log_path: string }).log_path,
    );
    // (a delta carries a piece of a line: the second one's end)
    await until('the agent to have written two lines', () => readIfThere(log).includes('line-two'), 45_000);
    await submit(term, `run: klaude checkout ${shortId(agent)} --force`);
    await waitBelow(term, `klaude: switched to ${shortId(agent)}`, [PARTIAL[0]!, PARTIAL[1]!, READY]);
    expect(term.text()).not.toContain(PARTIAL[3]);
  });
});
