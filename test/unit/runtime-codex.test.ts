// The codex adapter: normaliser on real captured `codex exec --json` lines (test/fixtures/codex),
// and the command it builds.
import { describe, expect, it } from 'vitest';
import { buildCodexCommand, codexAdapter, codexSandbox, tomlValue } from '../../src/adapters/codex/adapter.js';
import { codexErrorMessage, createCodexNormaliser, unwrapShell } from '../../src/adapters/codex/normaliser.js';
import { brief, doneOf, fixtureLines, runFixture, type FixtureRun } from '../support/normalise-fixture.js';

const OK = { exit: { code: 0 } };

describe('codex normaliser: captured runs', () => {
  const cases: { fixture: string; run?: FixtureRun; expected: string[] }[] = [
    {
      fixture: 'exec-text.ndjson',
      run: OK,
      expected: ['init codex', 'text "Hello from the stand-in."', 'usage', 'done done'],
    },
    {
      fixture: 'exec-shell.ndjson',
      run: OK,
      expected: [
        'init codex',
        'text "Running the marker command."',
        'tool_call shell: echo fixture-marker',
        'tool_result shell: fixture-marker⏎',
        'text "The command printed fixture-marker.\\n[UPDATE] marker printed"',
        'update marker printed',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'exec-shell-fail.ndjson',
      run: OK,
      expected: [
        'init codex',
        "tool_call shell: sh -c 'echo oops >&2; exit 3'",
        'tool_result shell error: oops⏎exit code 3',
        'text "The command failed with exit code 3."',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'exec-patch.ndjson',
      run: OK,
      expected: [
        'init codex',
        'tool_call apply_patch: add /home/user/project/notes.txt',
        'tool_result apply_patch: add /home/user/project/notes.txt',
        'text "Created notes.txt."',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'exec-api-error.ndjson',
      run: { exit: { code: 1 } },
      expected: ['init codex', 'error stand-in bad request', 'done failed'],
    },
    {
      fixture: 'exec-resume.ndjson',
      run: OK,
      expected: ['init codex', 'text "Second answer, same thread."', 'usage', 'done done'],
    },
    // SIGINT (klaude's interrupt): codex exits 1 without a final event.
    {
      fixture: 'exec-interrupt.ndjson',
      run: { interruptAfter: 1, exit: { code: 1 } },
      expected: ['init codex', 'done interrupted'],
    },
    // The same run cut off without an interrupt: a failure.
    {
      fixture: 'exec-interrupt.ndjson',
      run: { exit: { code: 1, stderr: 'boom' } },
      expected: ['init codex', 'done failed'],
    },
  ];
  it.each(cases)('$fixture', ({ fixture, run, expected }) => {
    expect(runFixture(createCodexNormaliser(), fixtureLines('codex', fixture), run).map(brief)).toEqual(expected);
  });

  it('reports the thread id, usage without cost, the final text and created files', () => {
    const events = runFixture(createCodexNormaliser(), fixtureLines('codex', 'exec-patch.ndjson'), OK);
    expect(events[0]).toEqual({
      type: 'init',
      runtime: 'codex',
      nativeSessionId: '01a20601-6dc5-7d63-82b5-45b8768cd640',
    });
    expect(events.find((e) => e.type === 'usage')).toEqual({
      type: 'usage',
      inputTokens: 275,
      outputTokens: 15,
      cacheReadTokens: 0,
    });
    expect(doneOf(events)[0]).toEqual({
      type: 'done',
      status: 'done',
      finalText: 'Created notes.txt.',
      filesEdited: [],
      filesCreated: ['/home/user/project/notes.txt'],
    });
  });

  it('a failed turn carries the API message, not the raw body', () => {
    const [done] = doneOf(runFixture(createCodexNormaliser(), fixtureLines('codex', 'exec-api-error.ndjson')));
    expect(done).toMatchObject({ status: 'failed', error: 'stand-in bad request' });
  });

  it('exit after turn.completed adds nothing; a crash mid-turn gives one failed done with stderr', () => {
    const n = createCodexNormaliser();
    runFixture(n, fixtureLines('codex', 'exec-text.ndjson'));
    expect(n.end({ code: 0, signal: null, stderr: '' })).toEqual([]);
    const m = createCodexNormaliser();
    runFixture(m, fixtureLines('codex', 'exec-text.ndjson').slice(0, 2));
    expect(m.end({ code: null, signal: 'SIGKILL', stderr: 'WARNING: x\nfatal: gone\n' })).toEqual([
      {
        type: 'done',
        status: 'failed',
        filesEdited: [],
        filesCreated: [],
        error: 'codex exited with signal SIGKILL: WARNING: x | fatal: gone',
      },
    ]);
  });

  it('ignores junk, reasoning and unknown lines', () => {
    const n = createCodexNormaliser();
    for (const l of [
      '',
      'not json',
      '{"type":42}',
      '{"type":"item.completed","item":{"id":"r","type":"reasoning","text":"hmm"}}',
      '{"type":"future.event"}',
    ]) {
      expect(n.line(l)).toEqual([]);
    }
  });

  it('maps mcp, web search and todo items to tool calls', () => {
    const n = createCodexNormaliser();
    const lines = [
      {
        type: 'item.started',
        item: {
          id: 'm',
          type: 'mcp_tool_call',
          server: 'docs',
          tool: 'search',
          arguments: { query: 'ulid' },
          status: 'in_progress',
        },
      },
      {
        type: 'item.completed',
        item: {
          id: 'm',
          type: 'mcp_tool_call',
          server: 'docs',
          tool: 'search',
          arguments: { query: 'ulid' },
          result: { content: [] },
          error: null,
          status: 'completed',
        },
      },
      { type: 'item.completed', item: { id: 'w', type: 'web_search', query: 'vitest 4' } },
      {
        type: 'item.started',
        item: {
          id: 't',
          type: 'todo_list',
          items: [
            { text: 'a', completed: true },
            { text: 'b', completed: false },
          ],
        },
      },
      {
        type: 'item.updated',
        item: {
          id: 't',
          type: 'todo_list',
          items: [
            { text: 'a', completed: true },
            { text: 'b', completed: true },
          ],
        },
      },
    ].map((o) => JSON.stringify(o));
    expect(runFixture(n, lines).map(brief)).toEqual([
      'tool_call mcp__docs__search: ulid',
      'tool_result ?: {"content":[]}',
      'tool_call web_search: vitest 4',
      'tool_result web_search: ',
      'tool_call todo_list: 2 todos, 1 done',
      // An update of the plan in place is a call and result of its own (the agent's progress counts it).
      'tool_call todo_list: 2 todos, 2 done',
      'tool_result todo_list: [x] a⏎[x] b',
    ]);
  });
});

describe('codex helpers', () => {
  it.each([
    ["/bin/bash -lc 'echo hi'", 'echo hi'],
    ['/bin/bash -lc "sh -c \'exit 3\'"', "sh -c 'exit 3'"],
    ["bash -lc 'it'\\''s'", "it's"],
    ['/usr/bin/zsh -c "a \\"b\\""', 'a "b"'],
    ['ls -la', 'ls -la'],
  ])('unwrapShell(%s)', (input, out) => expect(unwrapShell(input)).toBe(out));

  it('codexErrorMessage digs the message out of a JSON body', () => {
    expect(codexErrorMessage('{"error":{"message":"quota"}}', 'x')).toBe('quota');
    expect(codexErrorMessage('plain', 'x')).toBe('plain');
    expect(codexErrorMessage(undefined, 'x')).toBe('x');
  });

  it('tomlValue writes TOML literals', () => {
    expect(tomlValue('a "q"\nb')).toBe('"a \\"q\\"\\nb"');
    expect(tomlValue({ command: 'npx', args: ['-y', 'srv'], env: { K: 'v' } })).toBe(
      '{ "command" = "npx", "args" = ["-y", "srv"], "env" = { "K" = "v" } }',
    );
  });

  it.each([
    ['acceptEdits', 'workspace-write'],
    [null, 'workspace-write'],
    ['default', 'read-only'],
    ['plan', 'read-only'],
    ['bypassPermissions', null],
  ])('sandbox for %s is %s', (mode, sandbox) => expect(codexSandbox(mode)).toBe(sandbox));
});

describe('codex command', () => {
  const base = { binary: '/bin/codex', cwd: '/p', nativeSessionId: null, resume: false, prompt: '-starts with a dash' };

  it('a new thread: exec --json, sandbox, instructions, prompt after --, stdin closed', () => {
    const cmd = buildCodexCommand({
      ...base,
      permissionMode: 'acceptEdits',
      model: 'gpt-5',
      effort: 'high',
      appendSystemPrompt: 'Be "brief".',
    });
    expect(cmd).toEqual({
      file: '/bin/codex',
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-c',
        'sandbox_mode="workspace-write"',
        '-m',
        'gpt-5',
        '-c',
        'model_reasoning_effort="high"',
        '-c',
        'developer_instructions="Be \\"brief\\"."',
        '--',
        '-starts with a dash',
      ],
      env: {},
      stdin: 'closed',
    });
  });

  it('resume: exec resume … -- <thread> <prompt>; bypass skips the sandbox', () => {
    const cmd = buildCodexCommand({
      ...base,
      nativeSessionId: 'T1',
      resume: true,
      permissionMode: 'bypassPermissions',
      prompt: 'next',
    });
    expect(cmd.args).toEqual([
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--',
      'T1',
      'next',
    ]);
  });

  it('MCP servers become mcp_servers overrides', () => {
    const mcp = JSON.stringify({
      mcpServers: {
        docs: { command: 'npx', args: ['docs-mcp'] },
        web: { url: 'http://127.0.0.1:1/mcp' },
        'bad name': { command: 'x' },
      },
    });
    const args = buildCodexCommand({ ...base, mcpConfig: mcp }).args;
    expect(args).toContain('mcp_servers.docs={ "command" = "npx", "args" = ["docs-mcp"] }');
    expect(args).toContain('mcp_servers.web={ "url" = "http://127.0.0.1:1/mcp" }');
    expect(args.join(' ')).not.toContain('bad name');
  });

  it('declares no streaming input, the id from the CLI, and `codex resume` for checkout', () => {
    expect(codexAdapter.supportsStreamingInput).toBe(false);
    expect(codexAdapter.choosesSessionIdUpFront).toBe(false);
    expect(codexAdapter.encodeInterrupt('x')).toBeNull();
    expect(codexAdapter.interactiveResume('/bin/codex', 'T1')).toEqual({ file: '/bin/codex', args: ['resume', 'T1'] });
  });
});
