// Live means live, with the real claude: a slow streamed reply shows in `klaude logs -f` and in
// the dashboard's log pane while the message is still streaming (checked against the log: no
// whole `text` yet), then once whole; an agent whose API is a closed port shows a retry line
// within 5 s, on its log and on its row in `klaude sessions`.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

/** The slow reply: 16 words then an end mark, `w01 … w16 THE-END` (another letter for another test). */
const reply = (letter: string): string =>
  `${Array.from({ length: 16 }, (_, i) => `${letter}${String(i + 1).padStart(2, '0')}`).join(' ')} THE-END-${letter}`;
const FULL = reply('w');

const fx = useAgentHomes({
  responder: (r) =>
    r.prompt.startsWith('slow')
      ? { text: reply(r.prompt === 'slow two' ? 'v' : 'w'), chunks: 17, delayMs: 450 }
      : { text: `Reply to: ${r.prompt}` },
});
let home: AgentHome;
let offline: AgentHome;
let ui: PtySession | undefined;

beforeAll(() => {
  home = fx.home();
  offline = fx.home({ baseUrl: 'http://127.0.0.1:9' }); // ANTHROPIC_BASE_URL: a closed loopback port
});

afterAll(async () => {
  await ui?.dispose();
});

const klaude = (h: AgentHome, args: string[]) => h.k(args, { timeoutMs: 60_000 });

async function startDetached(h: AgentHome, prompt: string): Promise<{ id: string; log: string }> {
  const r = await klaude(h, ['start', 'general', prompt, '--json']);
  expect(r.code, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout).sessions[0];
  return { id: s.id, log: s.logPath };
}

function follow(
  h: AgentHome,
  args: string[],
): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [KLAUDE_CLI, ...args], {
    cwd: h.projectDir,
    env: h.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => out, exit };
}

/** The log has the message's closing `text` event (the stream is over). */
const closed = (log: string): boolean => readFileSync(log, 'utf8').includes('"type":"text"');

describe('token streaming', () => {
  it('the dashboard’s log pane shows the reply while it streams', async () => {
    ui = spawnPty(process.execPath, [KLAUDE_CLI, 'ui'], { cwd: home.projectDir, env: home.env, cols: 140, rows: 40 });
    await ui.waitForText(/\? help/, { timeoutMs: 45_000 });
    const { log } = await startDetached(home, 'slow two');
    // The project's only session: selected, its log in the pane.
    await ui.waitForText(/v0[1-6]/, { timeoutMs: 60_000 });
    expect(closed(log)).toBe(false);
    expect(ui.text()).not.toContain('THE-END-v');
    // The last piece shows with the streaming mark; then the whole text replaces the pieces.
    await ui.waitFor((t) => t.includes('THE-END-v') && !t.includes('▍'), 'the whole text', { timeoutMs: 60_000 });
    await ui.dispose();
    ui = undefined;
  });
  it('klaude logs -f shows the reply while it streams, then the whole text once', async () => {
    const { id, log } = await startDetached(home, 'slow one');
    const f = follow(home, ['logs', '-f', id]);
    await vi.waitFor(() => expect(f.out()).toMatch(/w0[1-4]/), { timeout: 60_000, interval: 20 });
    // Partial text is out, and the message is still streaming.
    expect(f.out()).not.toContain('THE-END-w');
    expect(closed(log)).toBe(false);
    const deltas = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"text_delta"')).length;
    expect(deltas).toBeGreaterThan(0);
    expect(await f.exit).toBe(0);
    expect(f.out()).toContain(`${FULL}\n`);
    expect(f.out().split('THE-END-w').length - 1).toBe(1);
    // Coalesced: never more than one piece per stream chunk (17), usually fewer.
    const all = readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"text_delta"')).length;
    expect(all).toBeLessThanOrEqual(17);
  });
});

describe('failures show at once', () => {
  it('an agent whose API is unreachable shows a retry line within 5 s, in its log and its row', async () => {
    const t0 = Date.now();
    const { id } = await startDetached(offline, 'anyone there?');
    const f = follow(offline, ['logs', '-f', id]);
    await vi.waitFor(
      () => expect(f.out()).toMatch(/↻ API unreachable — retry \d+\/10 in [\d.]+ m?s: no connection to the API/),
      { timeout: 20_000, interval: 20 },
    );
    const took = Date.now() - t0;
    f.child.kill('SIGINT');
    expect(took, `retry line after ${took} ms`).toBeLessThan(5000 + 3000); // 5 s once claude is up; claude's own start-up under load on top
    const s = await klaude(offline, ['sessions']);
    expect(s.stdout).toMatch(new RegExp(`${id.slice(-8)}\\s+running.*API unreachable — retry \\d+/10`));
  });
});
