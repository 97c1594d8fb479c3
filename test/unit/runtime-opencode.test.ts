// The opencode adapter: normaliser on real captured `opencode run --format json` lines
// (test/fixtures/opencode) — 1.18.33 has no final event, so each run ends with the exit — and the
// command it builds.
import { describe, expect, it } from 'vitest';
import { buildOpencodeCommand, opencodeAdapter, opencodeMcpConfig } from '../../src/adapters/opencode/adapter.js';
import { createOpencodeNormaliser, opencodeToolSummary } from '../../src/adapters/opencode/normaliser.js';
import { brief, doneOf, fixtureLines, runFixture, type FixtureRun } from '../support/normalise-fixture.js';

const OK = { exit: { code: 0 } };

describe('opencode normaliser: captured runs', () => {
  const cases: { fixture: string; run?: FixtureRun; expected: string[] }[] = [
    {
      fixture: 'run-text.ndjson',
      run: OK,
      expected: ['init opencode', 'text "Hello from the stand-in."', 'usage', 'done done'],
    },
    {
      fixture: 'run-bash.ndjson',
      run: OK,
      expected: [
        'init opencode',
        'text "Running the marker command."',
        'tool_call bash: echo fixture-marker',
        'tool_result bash: fixture-marker⏎',
        'usage',
        'text "The command printed fixture-marker.\\n[UPDATE] marker printed"',
        'update marker printed',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'run-write.ndjson',
      run: OK,
      expected: [
        'init opencode',
        'tool_call write: /home/user/project/notes.txt',
        'tool_result write: Wrote file successfully.',
        'usage',
        'text "Created notes.txt."',
        'usage',
        'done done',
      ],
    },
    // A refused permission ends opencode's run with exit 0 and no answer: not done.
    {
      fixture: 'run-tool-error.ndjson',
      run: OK,
      expected: [
        'init opencode',
        'tool_call read: /nonexistent/klaude-fixture.txt',
        'tool_result read error: The user rejected permission to use this specific',
        'usage',
        'done failed',
      ],
    },
    {
      fixture: 'run-api-error.ndjson',
      run: { exit: { code: 1 } },
      expected: ['init opencode', 'error stand-in bad request', 'done failed'],
    },
    {
      fixture: 'run-resume.ndjson',
      run: OK,
      expected: ['init opencode', 'text "Second answer, same session."', 'usage', 'done done'],
    },
    {
      fixture: 'run-interrupt.ndjson',
      run: { interruptAfter: 1, exit: { code: null, signal: 'SIGINT' } },
      expected: ['init opencode', 'text "Working on it."', 'done interrupted'],
    },
    {
      fixture: 'run-interrupt.ndjson',
      run: { exit: { code: null, signal: 'SIGKILL' } },
      expected: ['init opencode', 'text "Working on it."', 'done failed'],
    },
  ];
  it.each(cases)('$fixture', ({ fixture, run, expected }) => {
    expect(runFixture(createOpencodeNormaliser(), fixtureLines('opencode', fixture), run).map(brief)).toEqual(expected);
  });

  it('the session id comes from the first line; cost per step; done at exit with the last text, cost and files', () => {
    const events = runFixture(createOpencodeNormaliser(), fixtureLines('opencode', 'run-write.ndjson'), OK);
    expect(events[0]).toEqual({
      type: 'init',
      runtime: 'opencode',
      nativeSessionId: expect.stringMatching(/^ses_\w+$/),
    });
    expect(events.filter((e) => e.type === 'usage')[0]).toEqual({
      type: 'usage',
      inputTokens: 27,
      outputTokens: 39,
      cacheReadTokens: 0,
      costUsd: 0.000666,
    });
    const [done] = doneOf(events);
    expect(done).toMatchObject({
      status: 'done',
      finalText: 'Created notes.txt.',
      filesCreated: ['/home/user/project/notes.txt'],
      filesEdited: [],
    });
    expect(done!.costUsd).toBeCloseTo(0.000666 + 0.000522, 9);
  });

  it('nothing is done before the exit (no final event in 1.18.33)', () => {
    const events = runFixture(createOpencodeNormaliser(), fixtureLines('opencode', 'run-text.ndjson'));
    expect(doneOf(events)).toEqual([]);
  });

  it('the refused-permission failure says what was refused', () => {
    const [done] = doneOf(
      runFixture(createOpencodeNormaliser(), fixtureLines('opencode', 'run-tool-error.ndjson'), OK),
    );
    expect(done!.error).toMatch(
      /^opencode stopped: permission for read \/nonexistent\/klaude-fixture\.txt was refused/,
    );
  });

  it('a newer opencode final `done` line ends the turn at once; the exit then adds nothing', () => {
    const n = createOpencodeNormaliser();
    const lines = [
      ...fixtureLines('opencode', 'run-text.ndjson'),
      '{"type":"done","timestamp":1,"sessionID":"ses_df9fbb5b1ffeHizDQoV4hdjRMN","reason":"idle"}',
    ];
    expect(runFixture(n, lines).map(brief).slice(-1)).toEqual(['done done']);
    expect(n.end({ code: 0, signal: null, stderr: '' })).toEqual([]);
  });

  it('tool summaries use opencode argument names', () => {
    expect(opencodeToolSummary('edit', { filePath: '/p/a.ts', oldString: 'x', newString: 'y' })).toBe('/p/a.ts');
    expect(opencodeToolSummary('todowrite', { todos: [{}, {}] })).toBe('2 todos');
    expect(opencodeToolSummary('mcp_tool', { q: 'x' })).toBe('x');
  });
});

describe('opencode command', () => {
  const base = { binary: '/bin/opencode', cwd: '/p', nativeSessionId: null, resume: false, prompt: 'do "it"  now' };

  it('a new session: run --format json, the prompt (with instructions) on stdin, edits allowed for acceptEdits', () => {
    const cmd = buildOpencodeCommand({
      ...base,
      permissionMode: 'acceptEdits',
      model: 'anthropic/claude-sonnet-4-5',
      effort: 'high',
      appendSystemPrompt: 'Be klaude.',
    });
    expect(cmd).toEqual({
      file: '/bin/opencode',
      args: ['run', '--format', 'json', '-m', 'anthropic/claude-sonnet-4-5', '--variant', 'high'],
      env: { OPENCODE_PERMISSION: '{"edit":"allow"}' },
      stdin: 'text',
      stdinText: '<instructions>\nBe klaude.\n</instructions>\n\ndo "it"  now',
    });
  });

  it('resume with -s; bypass approves with --auto; plan runs the plan agent', () => {
    expect(
      buildOpencodeCommand({
        ...base,
        nativeSessionId: 'ses_1',
        resume: true,
        permissionMode: 'bypassPermissions',
        appendSystemPrompt: 'x',
      }),
    ).toMatchObject({
      args: ['run', '--format', 'json', '-s', 'ses_1', '--auto'],
      stdinText: 'do "it"  now',
    });
    expect(buildOpencodeCommand({ ...base, permissionMode: 'plan' }).args).toEqual([
      'run',
      '--format',
      'json',
      '--agent',
      'plan',
    ]);
  });

  it('MCP servers go through OPENCODE_CONFIG_CONTENT', () => {
    const mcp = JSON.stringify({
      mcpServers: { docs: { command: 'npx', args: ['docs-mcp'], env: { K: 'v' } }, web: { url: 'http://h/mcp' } },
    });
    expect(JSON.parse(opencodeMcpConfig(mcp)!)).toEqual({
      mcp: {
        docs: { type: 'local', command: ['npx', 'docs-mcp'], environment: { K: 'v' } },
        web: { type: 'remote', url: 'http://h/mcp' },
      },
    });
    expect(buildOpencodeCommand({ ...base, mcpConfig: mcp }).env.OPENCODE_CONFIG_CONTENT).toContain('"docs"');
    expect(opencodeMcpConfig(null)).toBeNull();
  });

  it('declares no streaming input, the id from the CLI, and `opencode -s` for checkout', () => {
    expect(opencodeAdapter.supportsStreamingInput).toBe(false);
    expect(opencodeAdapter.choosesSessionIdUpFront).toBe(false);
    expect(opencodeAdapter.interactiveResume('/bin/opencode', 'ses_1')).toEqual({
      file: '/bin/opencode',
      args: ['-s', 'ses_1'],
    });
  });
});
