// The cursor adapter. NOTE: test/fixtures/cursor holds CONSTRUCTED lines (built from the documented
// shapes in docs/cli-facts.md §4.3), not captured ones: cursor-agent cannot be installed here.
import { describe, expect, it } from 'vitest';
import { buildCursorCommand, cursorAdapter } from '../../src/adapters/cursor/adapter.js';
import { createCursorNormaliser, cursorTool } from '../../src/adapters/cursor/normaliser.js';
import { brief, doneOf, fixtureLines, runFixture, type FixtureRun } from '../support/normalise-fixture.js';

describe('cursor normaliser: constructed lines (not captured)', () => {
  const cases: { fixture: string; run?: FixtureRun; expected: string[] }[] = [
    {
      fixture: 'constructed-text.ndjson',
      run: { exit: { code: 0 } },
      expected: ['init cursor', 'text "Hello."', 'done done'],
    },
    {
      fixture: 'constructed-tools.ndjson',
      run: { exit: { code: 0 } },
      expected: [
        'init cursor',
        'text "Running the marker command."',
        'tool_call shell: echo fixture-marker',
        'tool_result shell: fixture-marker⏎',
        'tool_call write: notes.txt',
        'tool_result write: 1 lines written to /home/user/project/notes.txt',
        'tool_call read: missing.txt',
        'tool_result read error: File not found: missing.txt',
        'tool_call web_search: klaude fixtures',
        'tool_result web_search: no results',
        'text "The command printed fixture-marker and notes.txt exists.\\n[UPDATE] marker printed"',
        'update marker printed',
        'done done',
      ],
    },
    {
      fixture: 'constructed-no-result.ndjson',
      run: { exit: { code: 1, stderr: 'Error: not logged in' } },
      expected: ['init cursor', 'done failed'],
    },
    {
      fixture: 'constructed-no-result.ndjson',
      run: { interruptAfter: 1, exit: { code: null, signal: 'SIGINT' } },
      expected: ['init cursor', 'done interrupted'],
    },
  ];
  it.each(cases)('$fixture', ({ fixture, run, expected }) => {
    expect(runFixture(createCursorNormaliser(), fixtureLines('cursor', fixture), run).map(brief)).toEqual(expected);
  });

  it('init carries chat id, model and cwd; done the last message (not the joined result), duration and files', () => {
    const events = runFixture(createCursorNormaliser(), fixtureLines('cursor', 'constructed-tools.ndjson'));
    expect(events[0]).toEqual({
      type: 'init',
      runtime: 'cursor',
      nativeSessionId: 'c6b62c6f-7ead-4fd6-9922-e952131177ff',
      model: 'Claude 4 Sonnet',
      cwd: '/home/user/project',
    });
    expect(doneOf(events)[0]).toEqual({
      type: 'done',
      status: 'done',
      finalText: 'The command printed fixture-marker and notes.txt exists.\n[UPDATE] marker printed',
      durationMs: 1234,
      filesEdited: [],
      filesCreated: ['/home/user/project/notes.txt'],
    });
  });

  it('a failed run without a result names the exit and stderr', () => {
    const [done] = doneOf(
      runFixture(createCursorNormaliser(), fixtureLines('cursor', 'constructed-no-result.ndjson'), {
        exit: { code: 1, stderr: 'Error: not logged in\n' },
      }),
    );
    expect(done).toMatchObject({ status: 'failed', error: 'cursor-agent exited with code 1: Error: not logged in' });
  });

  it('an error result fails the turn', () => {
    const n = createCursorNormaliser();
    expect(
      n.line('{"type":"result","subtype":"error","is_error":true,"result":"rate limited","session_id":"s"}'),
    ).toEqual([{ type: 'done', status: 'failed', filesEdited: [], filesCreated: [], error: 'rate limited' }]);
  });

  it('cursorTool names tools by their key; function tools by name with parsed arguments', () => {
    expect(cursorTool({ editToolCall: { args: { path: 'a' } } })).toEqual({
      name: 'edit',
      args: { path: 'a' },
      result: undefined,
    });
    expect(cursorTool({ function: { name: 'f', arguments: '{"a":1}' } })).toEqual({
      name: 'f',
      args: { a: 1 },
      result: undefined,
    });
    expect(cursorTool({})).toBeNull();
  });
});

describe('cursor command', () => {
  const base = { binary: '/bin/cursor-agent', cwd: '/p', nativeSessionId: null, resume: false, prompt: 'task' };

  it('print mode, stream-json, trust, --force for acceptEdits, instructions ahead of the prompt', () => {
    expect(
      buildCursorCommand({ ...base, permissionMode: 'acceptEdits', model: 'gpt-5', appendSystemPrompt: 'Be klaude.' }),
    ).toEqual({
      file: '/bin/cursor-agent',
      args: [
        '-p',
        '--output-format',
        'stream-json',
        '--trust',
        '--model',
        'gpt-5',
        '--force',
        '--',
        '<instructions>\nBe klaude.\n</instructions>\n\ntask',
      ],
      env: {},
      stdin: 'closed',
    });
  });

  it('resume with --resume <chatId>; plan mode; default proposes only', () => {
    expect(buildCursorCommand({ ...base, nativeSessionId: 'c1', resume: true, permissionMode: 'plan' }).args).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--trust',
      '--resume',
      'c1',
      '--mode',
      'plan',
      '--',
      'task',
    ]);
    expect(buildCursorCommand({ ...base, permissionMode: 'default' }).args).not.toContain('--force');
  });

  it('declares no streaming input and `cursor-agent --resume` for checkout', () => {
    expect(cursorAdapter.supportsStreamingInput).toBe(false);
    expect(cursorAdapter.interactiveResume('/bin/cursor-agent', 'c1')).toEqual({
      file: '/bin/cursor-agent',
      args: ['--resume', 'c1'],
    });
  });
});
