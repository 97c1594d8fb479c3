// The gemini adapter: normaliser on real captured `gemini --output-format stream-json` lines
// (test/fixtures/gemini), the command it builds, and where gemini keeps a session.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildGeminiCommand,
  geminiAdapter,
  geminiApprovalMode,
  geminiTranscriptPath,
} from '../../src/adapters/gemini/adapter.js';
import { createGeminiNormaliser, geminiErrorMessage, geminiToolSummary } from '../../src/adapters/gemini/normaliser.js';
import { brief, doneOf, fixtureLines, runFixture, type FixtureRun } from '../support/normalise-fixture.js';

const OK = { exit: { code: 0 } };
// Fixture paths do not exist here: write_file of them counts as creating.
const normaliser = () => createGeminiNormaliser({ exists: () => false });

describe('gemini normaliser: captured runs', () => {
  const cases: { fixture: string; run?: FixtureRun; expected: string[] }[] = [
    // Three delta pieces become one text block.
    {
      fixture: 'prompt-text.ndjson',
      run: OK,
      expected: ['init gemini', 'text "Hello from the stand-in, in three parts."', 'usage', 'done done'],
    },
    {
      fixture: 'prompt-shell.ndjson',
      run: OK,
      expected: [
        'init gemini',
        'text "Running the marker command."',
        'tool_call run_shell_command: echo fixture-marker',
        'tool_result run_shell_command: fixture-marker',
        'text "The command printed fixture-marker.\\n[UPDATE] marker printed"',
        'update marker printed',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'prompt-write.ndjson',
      run: OK,
      expected: [
        'init gemini',
        'tool_call write_file: /home/user/project/notes.txt',
        'tool_result write_file: ',
        'text "Created notes.txt."',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'prompt-shell-denied.ndjson',
      run: OK,
      expected: [
        'init gemini',
        'tool_call run_shell_command: echo not-allowed',
        'tool_result run_shell_command error: Tool "run_shell_command" not found. Did you mean o',
        'text "I could not run it."',
        'usage',
        'done done',
      ],
    },
    {
      fixture: 'prompt-api-error.ndjson',
      run: { exit: { code: 144 } },
      expected: ['init gemini', 'usage', 'done failed'],
    },
    {
      fixture: 'prompt-resume.ndjson',
      run: OK,
      expected: ['init gemini', 'text "Second answer, same session."', 'usage', 'done done'],
    },
    // SIGINT: gemini exits 0 without a result.
    {
      fixture: 'prompt-interrupt.ndjson',
      run: { interruptAfter: 1, exit: { code: 0 } },
      expected: ['init gemini', 'done interrupted'],
    },
    { fixture: 'prompt-interrupt.ndjson', run: { exit: { code: 0 } }, expected: ['init gemini', 'done failed'] },
  ];
  it.each(cases)('$fixture', ({ fixture, run, expected }) => {
    expect(
      runFixture(normaliser(), fixtureLines('gemini', fixture), run)
        .filter((e) => e.type !== 'text_delta')
        .map(brief),
    ).toEqual(expected);
  });

  it('reports the session id and model, usage, duration, final text and a created file', () => {
    const events = runFixture(normaliser(), fixtureLines('gemini', 'prompt-write.ndjson'), OK);
    expect(events[0]).toEqual({
      type: 'init',
      runtime: 'gemini',
      nativeSessionId: '5e551011-0000-4000-8000-000000000001',
      model: 'gemini-2.5-pro',
    });
    expect(events.find((e) => e.type === 'usage')).toEqual({
      type: 'usage',
      inputTokens: 5,
      outputTokens: 15,
      cacheReadTokens: 0,
    });
    expect(doneOf(events)[0]).toEqual({
      type: 'done',
      status: 'done',
      finalText: 'Created notes.txt.',
      durationMs: expect.any(Number),
      filesEdited: [],
      filesCreated: ['/home/user/project/notes.txt'],
    });
  });

  it('write_file of an existing file counts as edited', () => {
    const events = runFixture(
      createGeminiNormaliser({ exists: () => true }),
      fixtureLines('gemini', 'prompt-write.ndjson'),
    );
    expect(doneOf(events)[0]).toMatchObject({ filesEdited: ['/home/user/project/notes.txt'], filesCreated: [] });
  });

  it('an API error result names the API message', () => {
    const [done] = doneOf(runFixture(normaliser(), fixtureLines('gemini', 'prompt-api-error.ndjson')));
    expect(done).toMatchObject({ status: 'failed', error: 'API error 400: stand-in bad request' });
  });

  it('text still pending at exit is written before the closing done', () => {
    const lines = fixtureLines('gemini', 'prompt-text.ndjson').slice(0, 4);
    expect(
      runFixture(normaliser(), lines, { exit: { code: 1, stderr: 'quota exceeded' } })
        .filter((e) => e.type !== 'text_delta')
        .map(brief),
    ).toEqual(['init gemini', 'text "Hello from the stand-in, in "', 'done failed']);
  });

  it('error events become error events; junk is ignored', () => {
    const n = normaliser();
    expect(n.line('{"type":"error","severity":"warning","message":"Loop detected"}')).toEqual([
      { type: 'error', message: 'warning: Loop detected' },
    ]);
    expect(n.line('garbage')).toEqual([]);
    expect(n.line('{"type":"message","role":"user","content":"x"}')).toEqual([]);
  });

  it('geminiErrorMessage and tool summaries', () => {
    expect(geminiErrorMessage('[API Error: {"error":{"code":429,"message":"slow down"}}]')).toBe(
      'API error 429: slow down',
    );
    expect(geminiErrorMessage('plain')).toBe('plain');
    expect(geminiToolSummary('read_many_files', { paths: ['a.ts', 'b.ts'] })).toBe('a.ts b.ts');
    expect(geminiToolSummary('replace', { file_path: '/p/x.ts', old_string: 'a', new_string: 'b' })).toBe('/p/x.ts');
    expect(geminiToolSummary('unknown_tool', { thing: 'value' })).toBe('value');
  });
});

describe('gemini command', () => {
  const base = { binary: '/bin/gemini', cwd: '/p', nativeSessionId: 'U1', resume: false, prompt: '-x do it' };

  it('a new session: --prompt=, stream-json, --skip-trust, --session-id, approval mode; instructions ahead of the prompt', () => {
    const cmd = buildGeminiCommand({ ...base, model: 'gemini-2.5-pro', appendSystemPrompt: 'You are klaude agent X.' });
    expect(cmd).toEqual({
      file: '/bin/gemini',
      args: [
        '--prompt=<instructions>\nYou are klaude agent X.\n</instructions>\n\n-x do it',
        '--output-format',
        'stream-json',
        '--skip-trust',
        '--session-id',
        'U1',
        '--approval-mode',
        'auto_edit',
        '-m',
        'gemini-2.5-pro',
      ],
      env: { GEMINI_CLI_NO_RELAUNCH: 'true' },
      stdin: 'closed',
    });
  });

  it('resume: --resume <uuid>, no instructions again', () => {
    const cmd = buildGeminiCommand({
      ...base,
      resume: true,
      appendSystemPrompt: 'again?',
      permissionMode: 'bypassPermissions',
    });
    expect(cmd.args).toEqual([
      '--prompt=-x do it',
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--resume',
      'U1',
      '--approval-mode',
      'yolo',
    ]);
  });

  it.each([
    ['acceptEdits', 'auto_edit'],
    ['default', 'default'],
    ['plan', 'plan'],
    ['bypassPermissions', 'yolo'],
    ['dontAsk', 'yolo'],
    [null, 'auto_edit'],
  ])('approval mode for %s is %s', (mode, out) => expect(geminiApprovalMode(mode)).toBe(out));

  it('klaude picks the session id; no streaming input; `gemini --resume` for checkout', () => {
    expect(geminiAdapter.choosesSessionIdUpFront).toBe(true);
    expect(geminiAdapter.newSessionId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(geminiAdapter.supportsStreamingInput).toBe(false);
    expect(geminiAdapter.interactiveResume('/bin/gemini', 'U1')).toEqual({
      file: '/bin/gemini',
      args: ['--resume', 'U1'],
    });
  });
});

describe('gemini transcript path', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('finds session-<time>-<uuid8>.jsonl through projects.json, else a path that does not exist', () => {
    dir = mkdtempSync(join(tmpdir(), 'klaude-gemini-'));
    const id = '5e551011-0000-4000-8000-000000000001';
    const env = { HOME: dir };
    const missing = geminiTranscriptPath('/work/proj', id, env);
    expect(missing).toBe(join(dir, '.gemini', 'tmp', 'proj', 'chats', `session-${id}.jsonl`));
    mkdirSync(join(dir, '.gemini', 'tmp', 'proj', 'chats'), { recursive: true });
    writeFileSync(join(dir, '.gemini', 'projects.json'), JSON.stringify({ projects: { '/work/proj': 'proj' } }));
    const file = join(dir, '.gemini', 'tmp', 'proj', 'chats', 'session-2026-11-23T01-14-5e551011.jsonl');
    writeFileSync(file, `${JSON.stringify({ sessionId: id, kind: 'main' })}\n`);
    expect(geminiTranscriptPath('/work/proj', id, env)).toBe(file);
    // Another project's chats are searched too; GEMINI_CLI_HOME wins over HOME.
    expect(geminiTranscriptPath('/elsewhere', id, env)).toBe(file);
    expect(geminiTranscriptPath('/work/proj', id, { HOME: '/nonexistent', GEMINI_CLI_HOME: dir })).toBe(file);
  });
});

describe('gemini normaliser: streamed pieces', () => {
  it('gives a text_delta per assistant delta piece, and the whole text after them', () => {
    const events = runFixture(normaliser(), fixtureLines('gemini', 'prompt-text.ndjson'), OK);
    const deltas = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => (e as { text: string }).text)
      .join('');
    const text = events.find((e) => e.type === 'text') as { text: string } | undefined;
    expect(deltas).not.toBe('');
    expect(text?.text).toBe(deltas);
  });
});
