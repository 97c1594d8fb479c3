// The claude stream-json normaliser against real captured lines (test/fixtures/claude/*.ndjson).
import { describe, expect, it } from 'vitest';
import type { AgentEventInput } from '../../src/core/events.js';
import { createClaudeNormaliser } from '../../src/adapters/claude/normaliser.js';
import { fixtureLines, runFixture } from '../support/normalise-fixture.js';

const lines = (name: string): string[] => fixtureLines('claude', name);
const run = (name: string, opts: { interruptAfter?: number } = {}): AgentEventInput[] =>
  runFixture(createClaudeNormaliser(), lines(name), opts);

/** A compact view: type plus the fields a case cares about. */
function brief(e: AgentEventInput): string {
  switch (e.type) {
    case 'init':
      return `init ${e.runtime}`;
    case 'text':
      return `text ${JSON.stringify(e.text)}`;
    case 'update':
      return `update ${e.text}`;
    case 'tool_call':
      return `tool_call ${e.name}: ${e.summary}`;
    case 'tool_result':
      return `tool_result ${e.name ?? '?'}${e.isError ? ' error' : ''}: ${e.output.slice(0, 40)}`;
    case 'usage':
      return 'usage';
    case 'done':
      return `done ${e.status}`;
    default:
      return e.type;
  }
}

describe('claude normaliser: captured runs', () => {
  const cases: { fixture: string; expected: string[] }[] = [
    {
      fixture: 'print-text.ndjson',
      expected: ['init claude', 'text "Hello from the stand-in."', 'usage', 'done done'],
    },
    {
      fixture: 'print-bash.ndjson',
      expected: [
        'init claude',
        'text "Running the marker command."',
        'tool_call Bash: echo fixture-marker',
        'tool_result Bash: fixture-marker',
        'text "The command printed fixture-marker."',
        'usage',
        'done done',
      ],
    },
    {
      // stream_event and system/status lines give nothing; the complete assistant block gives the text once.
      fixture: 'print-partial.ndjson',
      expected: ['init claude', 'text "Streaming in three parts."', 'usage', 'done done'],
    },
    {
      fixture: 'print-api-error.ndjson',
      expected: ['init claude', 'text "API Error: 400 stand-in bad request"', 'usage', 'done failed'],
    },
    {
      // Two turns on one process: init once; the second turn ends interrupted (its "[Request interrupted by user]").
      fixture: 'stream-input-interrupt.ndjson',
      expected: [
        'init claude',
        'text "Answer to the first message."',
        'usage',
        'done done',
        'usage',
        'done interrupted',
      ],
    },
    {
      fixture: 'runtime-files.ndjson',
      expected: [
        'init claude',
        'text "Creating the notes file."',
        'tool_call Write: /home/user/project/notes.md',
        'tool_result Write: File created successfully at: /home/user',
        'tool_call Edit: /home/user/project/notes.md',
        'tool_result Edit: The file /home/user/project/notes.md has',
        'tool_call Write: /home/user/project/notes.md',
        'tool_result Write: The file /home/user/project/notes.md has',
        'tool_call Read: /home/user/project/missing.txt',
        'tool_result Read error: File does not exist. Note: your current ',
        'text "Done with the notes.\\n[UPDATE] notes.md written\\nAll good."',
        'update notes.md written',
        'usage',
        'done done',
      ],
    },
  ];
  it.each(cases)('$fixture', ({ fixture, expected }) => {
    expect(
      run(fixture)
        .filter((e) => e.type !== 'text_delta')
        .map(brief),
    ).toEqual(expected);
  });

  it('reports the native session id, model and cwd once', () => {
    const [init] = run('print-bash.ndjson');
    expect(init).toEqual({
      type: 'init',
      runtime: 'claude',
      nativeSessionId: '3b05bd11-8644-46ff-bba9-613ad515ba8f',
      model: expect.stringContaining('claude'),
      cwd: '/home/user/project',
    });
  });

  it('ends a turn with final text, cost, turns, and files created/edited from successful Write/Edit calls', () => {
    const events = run('runtime-files.ndjson');
    const done = events.find((e) => e.type === 'done');
    expect(done).toMatchObject({
      status: 'done',
      finalText: 'Done with the notes.\n[UPDATE] notes.md written\nAll good.',
      numTurns: 5,
      // Written first (created), then edited and rewritten: it stays "created", never also "edited".
      filesCreated: ['/home/user/project/notes.md'],
      filesEdited: [],
    });
    expect((done as { costUsd: number }).costUsd).toBeGreaterThan(0);
    const usage = events.find((e) => e.type === 'usage');
    expect(usage).toMatchObject({ type: 'usage', inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect((usage as { inputTokens: number }).inputTokens).toBeGreaterThan(1000);
  });

  it('counts a Write over an existing file as edited', () => {
    const n = createClaudeNormaliser();
    const write = (id: string, type: string) => [
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: null,
        message: { content: [{ type: 'tool_use', id, name: 'Write', input: { file_path: '/p/a.ts', content: 'x' } }] },
      }),
      JSON.stringify({
        type: 'user',
        parent_tool_use_id: null,
        message: { content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] },
        tool_use_result: { type },
      }),
    ];
    for (const l of [
      ...write('t1', 'update'),
      JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'ok' }),
    ])
      n.line(l);
    const done = lines('print-text.ndjson')
      .flatMap((l) => n.line(l))
      .find((e) => e.type === 'done');
    expect(done).toMatchObject({ filesEdited: ['/p/a.ts'], filesCreated: [] });
  });

  it('takes the per-turn cost from the cumulative total_cost_usd and reports the cumulative one on done', () => {
    const events = run('stream-input-interrupt.ndjson');
    const usages = events.filter((e) => e.type === 'usage') as { costUsd?: number }[];
    const dones = events.filter((e) => e.type === 'done') as { costUsd?: number }[];
    expect(usages[0]!.costUsd).toBeGreaterThan(0);
    expect(usages[1]!.costUsd).toBe(0); // the interrupted turn cost nothing more
    expect(dones[1]!.costUsd).toBe(dones[0]!.costUsd);
  });

  it('marks the turn interrupted when the runtime asked for it (even without the CLI saying so)', () => {
    const events = run('print-api-error.ndjson', { interruptAfter: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
  });

  it('gives failed turns an error and no final text', () => {
    const done = run('print-api-error.ndjson').at(-1);
    expect(done).toMatchObject({ type: 'done', status: 'failed', error: 'API Error: 400 stand-in bad request' });
    expect(done).not.toHaveProperty('finalText');
  });
});

describe('claude normaliser: robustness', () => {
  it.each([
    ['empty', ''],
    ['not JSON', 'Error parsing streaming input line: not json'],
    ['a JSON array', '[1,2,3]'],
    ['no type', '{"foo":1}'],
    ['an unknown type', '{"type":"rate_limit_event","info":{}}'],
    ['a hook event', '{"type":"system","subtype":"hook_started","hook_name":"SessionStart:startup"}'],
    ['assistant without content', '{"type":"assistant","message":null}'],
    ['assistant with junk blocks', '{"type":"assistant","message":{"content":[null,1,"x",{"type":"tool_use"}]}}'],
    ['user with junk blocks', '{"type":"user","message":{"content":[{"type":"tool_result"},null]}}'],
    [
      'a sub-agent message',
      '{"type":"assistant","parent_tool_use_id":"toolu_1","message":{"content":[{"type":"text","text":"inner"}]}}',
    ],
    ['a truncated line', '{"type":"assistant","message":{"content":[{"type":"text","te'],
  ])('ignores %s', (_name, line) => {
    const n = createClaudeNormaliser();
    expect(n.line(line)).toEqual([]);
  });

  it('tells the runtime about control responses', () => {
    const seen: [string, boolean][] = [];
    const n = createClaudeNormaliser({ onControlResponse: (id, ok) => seen.push([id, ok]) });
    expect(n.line('{"type":"control_response","response":{"subtype":"success","request_id":"req_int_1"}}')).toEqual([]);
    expect(seen).toEqual([['req_int_1', true]]);
  });

  it('ends a run cut off mid-turn: failed with the stderr tail, or interrupted when asked', () => {
    const a = createClaudeNormaliser();
    a.line(lines('print-text.ndjson')[0]!);
    expect(a.end({ code: 1, signal: null, stderr: 'boom\nreally bad' })).toEqual([
      expect.objectContaining({
        type: 'done',
        status: 'failed',
        error: expect.stringContaining('code 1: boom | really bad'),
      }),
    ]);
    const b = createClaudeNormaliser();
    b.line(lines('print-text.ndjson')[0]!);
    b.noteInterrupt();
    expect(b.end({ code: null, signal: 'SIGINT', stderr: '' })).toEqual([
      expect.objectContaining({ type: 'done', status: 'interrupted' }),
    ]);
  });

  it('adds nothing at exit after a complete turn', () => {
    const n = createClaudeNormaliser();
    for (const l of lines('print-text.ndjson')) n.line(l);
    expect(n.end({ code: 0, signal: null, stderr: '' })).toEqual([]);
  });
});

describe('refused tool calls (permission_denials)', () => {
  it('end the turn with an error naming the call and the agents.allowedTools rule to allow it', () => {
    const n = createClaudeNormaliser();
    const out = n.line(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'I could not run the tests.',
        num_turns: 2,
        permission_denials: [
          { tool_name: 'Bash', tool_use_id: 't1', tool_input: { command: 'npm test -- --run' } },
          { tool_name: 'WebFetch', tool_use_id: 't2', tool_input: {} },
        ],
      }),
    );
    expect(out.map((e) => e.type)).toEqual(['usage', 'done', 'error']);
    expect(out[1]).toMatchObject({ status: 'done' });
    expect(out[2]).toEqual({
      type: 'error',
      message:
        'refused without asking (headless agents can\'t answer permission prompts): Bash(npm test -- --run), WebFetch; allow it with agents.allowedTools in config.yaml, e.g. ["Bash(npm:*)", "WebFetch"]',
    });
  });

  it('say nothing when nothing was refused', () => {
    const n = createClaudeNormaliser();
    const out = n.line(JSON.stringify({ type: 'result', subtype: 'success', result: 'ok', permission_denials: [] }));
    expect(out.map((e) => e.type)).toEqual(['usage', 'done']);
  });
});
