// Proves the harness: the real `claude -p` talks to the loopback stand-in from a temp home.
import { afterEach, describe, expect, it } from 'vitest';
import { runClaude } from '../support/claude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { parseNdjson } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockAnthropic | undefined;
let home: TempHome | undefined;

afterEach(async () => {
  await mock?.close();
  home?.cleanup();
  mock = undefined;
  home = undefined;
});

async function setup(): Promise<{ mock: MockAnthropic; home: TempHome }> {
  mock = await startMockAnthropic();
  home = makeTempHome({ baseUrl: mock.url });
  return { mock, home };
}

const streamJson = ['--output-format', 'stream-json', '--verbose'];

describe('harness: real claude -p against the stand-in', () => {
  it('answers a prompt from the stand-in and the stand-in records the prompt', async () => {
    const { mock, home } = await setup();
    const prompt = `harness prompt ${Math.random().toString(36).slice(2)}`;
    mock.enqueue({ text: `scripted answer to ${prompt}` });

    const r = await runClaude(['-p', prompt, ...streamJson], { env: home.env, cwd: home.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);

    const events = parseNdjson(r.stdout);
    const init = events.find((e) => e.type === 'system' && e.subtype === 'init');
    expect(init?.cwd).toBe(home.projectDir);
    expect(init?.apiKeySource).toBe('ANTHROPIC_API_KEY');
    const result = events.at(-1);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: `scripted answer to ${prompt}`,
    });
    expect(result.total_cost_usd).toBeGreaterThan(0);

    const main = mock.mainRequests();
    expect(main).toHaveLength(1);
    expect(main[0]!.prompt).toBe(prompt);
    expect(main[0]!.isToolResult).toBe(false);
    expect(main[0]!.body.stream).toBe(true);
    expect(main[0]!.path).toBe('/v1/messages?beta=true');
  });

  it('makes the real claude run a Bash command and returns its output as a tool_result', async () => {
    const { mock, home } = await setup();
    const marker = `${Math.floor(Math.random() * 1e9)}-marker`;
    const command = `echo harness-$RANDOM-${marker}`;
    // `$RANDOM` is expanded by the shell: a number in its place proves the command really ran.
    mock.enqueue({ bash: { command, description: 'Print a marker' }, text: 'Running it.' }, { text: 'All done.' });

    const r = await runClaude(['-p', 'run the marker command', ...streamJson, '--allowedTools', 'Bash'], {
      env: home.env,
      cwd: home.projectDir,
    });
    expect(r.code).toBe(0);

    const toolTurn = await mock.waitForRequest((q) => q.isToolResult, 5_000);
    expect(toolTurn.toolResults).toHaveLength(1);
    expect(toolTurn.toolResults[0]!.isError).toBe(false);
    expect(toolTurn.toolResults[0]!.content.trim()).toMatch(new RegExp(`^harness-\\d+-${marker}$`));
    expect(toolTurn.prompt).toBe('');

    const events = parseNdjson(r.stdout);
    const toolUse = events
      .flatMap((e) => (e.type === 'assistant' ? e.message.content : []))
      .find((b: any) => b.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'Bash', input: { command } });
    expect(events.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'All done.', num_turns: 2 });
    expect(mock.mainRequests()).toHaveLength(2);
  });
});
