// An agent whose text and whose tool's output carry terminal escapes (OSC 52 writes the clipboard,
// OSC 0 the title, CSI moves the cursor): what `klaude start` (attached), `logs`, `wait`,
// `message -f` and `sessions` print holds none of them, klaude's own colours stay, and the words
// around them arrive. The real claude against the stand-in, the built CLI.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const CLIP = '\x1b]52;c;cm0gLXJmIH4K\x07'; // OSC 52, BEL-terminated: "rm -rf ~" onto the clipboard
const TITLE = '\x1b]0;pwned\x1b\\'; // OSC 0, ST-terminated
const HIDE = '\x1b[1A\x1b[2K'; // cursor up, erase the line
/** An OSC introducer, 7- or 8-bit. */
const OSC = /\x1b\]|\x9d/;

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult) {
      // The model repeats what the tool printed, escapes and all.
      const out = r.toolResults.map((t) => t.content).join(' ');
      return { text: `Tool said: ${out.trim()} (end of quote)${TITLE}`, chunks: 5, delayMs: 120 };
    }
    if (r.prompt === 'escape task')
      return {
        text: `Alpha words${CLIP} beta words.${TITLE}\n${HIDE}gamma words\x9b2J delta.`,
        // Claude Code refuses a command holding control characters: printf makes them.
        bash: { command: `printf 'tool-start \\033]52;c;ZXZpbA==\\007\\033]0;owned\\007 tool-end\\n'` },
      };
    return { text: `Second reply${CLIP} to the message${HIDE}.`, chunks: 4, delayMs: 120 };
  },
});
let home: AgentHome;

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 90_000 });
});

/** klaude with colours forced on, as on a terminal. */
const colourEnv = (): NodeJS.ProcessEnv => ({ ...home.env, FORCE_COLOR: '1', NO_COLOR: '' });

const klaude = (args: string[], env = colourEnv()) => home.k(args, { env });

/** No escape but klaude's own SGR colours, no C1 control, no C0 control but \n and \t. */
function expectSafe(out: string): void {
  expect(out).not.toMatch(OSC);
  const withoutSgr = out.replace(/\x1b\[[0-9;]*m/g, '');
  expect(withoutSgr).not.toContain('\x1b');
  expect(withoutSgr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
}

/** Output without klaude's colours, to look for the words. */
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('agent text with escape sequences', () => {
  let id = '';

  it('attached `klaude start` streams the words, not the escapes, and keeps its colours', async () => {
    const child = spawn(process.execPath, [KLAUDE_CLI, 'start', 'general', 'escape task'], {
      cwd: home.projectDir,
      env: colourEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    id = /started (\w{8})/.exec(out)![1]!;

    // The log has the escapes (the test would prove nothing otherwise) …
    const raw = await klaude(['logs', '--raw', id]);
    const events = raw.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string; output?: string });
    expect(events.find((e) => e.type === 'text')?.text).toContain(CLIP);
    expect(events.find((e) => e.type === 'tool_result')?.output).toContain('\x1b]52;c;ZXZpbA==\x07');
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.text)
        .join(''),
    ).toContain(TITLE);

    // … and the command's output none.
    expectSafe(out);
    const text = plain(out);
    expect(text).toContain('Alpha words beta words.\ngamma words delta.');
    expect(text).toContain('tool-start  tool-end'); // the tool's output, quoted back by the model
    expect(text).toContain('(end of quote)');
    expect(text).toContain("→ Bash: printf 'tool-start ");
    // klaude's own colours are still there: the tool-call line is cyan, the result dim.
    expect(out).toMatch(/\x1b\[36m→ Bash: /);
    expect(out).toMatch(/\x1b\[2m {2}✓ \d+ lines?\x1b\[22m/);
    expect(text).toMatch(/── agent \w{8} \(general\): done/);
  }, 120_000);

  it('`klaude logs`, `logs -s` and `logs --raw` print none', async () => {
    const logs = await klaude(['logs', id]);
    expect(logs.code).toBe(0);
    expectSafe(logs.stdout);
    expect(plain(logs.stdout)).toContain('Alpha words beta words.\ngamma words delta.');
    expect(plain(logs.stdout)).toContain('tool-start  tool-end');
    expect(logs.stdout).toMatch(/\x1b\[36m→ Bash: /);

    const summary = await klaude(['logs', '-s', id]);
    expectSafe(summary.stdout);
    expect(summary.stdout).toContain('(end of quote)');

    // --raw is the log's JSON: controls stay \u escapes, the value is the agent's.
    const raw = await klaude(['logs', '--raw', id]);
    expectSafe(raw.stdout);
    const texts = raw.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; text?: string })
      .filter((e) => e.type === 'text');
    expect(texts[0]!.text).toContain(CLIP);
  }, 120_000);

  it('`klaude wait` and `wait --json` print none', async () => {
    const wait = await klaude(['wait', id]);
    expect(wait.code).toBe(0);
    expectSafe(wait.stdout);
    expectSafe(wait.stderr);
    expect(wait.stdout).toContain('final text:\nTool said: ');
    expect(wait.stdout).toContain('tool-start  tool-end');

    const json = await klaude(['wait', '--json', id]);
    expectSafe(json.stdout);
    const parsed = JSON.parse(json.stdout) as { finished: { finalText: string }[] };
    expect(parsed.finished[0]!.finalText).toContain(TITLE);
  }, 120_000);

  it('`klaude message -f` and `klaude sessions` print none', async () => {
    const msg = await klaude(['message', '-f', id, 'again']);
    expect(msg.code).toBe(0);
    expectSafe(msg.stdout);
    expect(plain(msg.stdout)).toContain('Second reply to the message.');

    const sessions = await klaude(['sessions', '-v']);
    expect(sessions.code).toBe(0);
    expectSafe(sessions.stdout);
    expect(sessions.stdout).toContain('Second reply to the message.');
  }, 120_000);
});
