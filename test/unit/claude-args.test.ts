// Which `klaude -- <claude args>` survive a relaunch (src/supervisor/foreground-args.ts), checked
// against claude 2.1.197's own option shapes (`claude --help`).
import { describe, expect, it } from 'vitest';
import {
  buildLaunchArgs,
  parseClaudePassthrough,
  type ClaudePassthrough,
} from '../../src/supervisor/foreground-args.js';
import { isKlaudeError } from '../../src/lib/errors.js';

const none: ClaudePassthrough = { persistent: [], firstOnly: [], prompt: [] };

describe('parseClaudePassthrough', () => {
  it.each<[string, string[], Partial<ClaudePassthrough>]>([
    ['nothing', [], {}],
    ['a value flag', ['--model', 'sonnet'], { persistent: ['--model', 'sonnet'] }],
    ['a value flag with =', ['--model=sonnet'], { persistent: ['--model=sonnet'] }],
    ['a boolean flag', ['--verbose'], { persistent: ['--verbose'] }],
    ['a choice flag', ['--permission-mode', 'plan'], { persistent: ['--permission-mode', 'plan'] }],
    [
      'a value that looks like a flag',
      ['--append-system-prompt', '-be brief-'],
      { persistent: ['--append-system-prompt', '-be brief-'] },
    ],
    [
      'a variadic flag stops at the next flag',
      ['--add-dir', 'a', 'b', '--verbose'],
      { persistent: ['--add-dir', 'a', 'b', '--verbose'] },
    ],
    [
      'a variadic flag takes every word (as claude does)',
      ['--allowedTools', 'Bash', 'Edit'],
      { persistent: ['--allowedTools', 'Bash', 'Edit'] },
    ],
    ['the kebab spelling', ['--allowed-tools', 'Bash'], { persistent: ['--allowed-tools', 'Bash'] }],
    ['an optional value taken', ['--debug', 'api,hooks'], { persistent: ['--debug', 'api,hooks'] }],
    ['an optional value absent', ['-d', '--verbose'], { persistent: ['-d', '--verbose'] }],
    ['an optional value attached', ['-dapi'], { persistent: ['-dapi'] }],
    [
      '--name is first-launch only',
      ['--name', 'refactor', '--model', 'opus'],
      { firstOnly: ['--name', 'refactor'], persistent: ['--model', 'opus'] },
    ],
    ['-n with an attached value', ['-nrefactor'], { firstOnly: ['-nrefactor'] }],
    ['prompt words', ['fix', 'the', 'bug'], { prompt: ['fix', 'the', 'bug'] }],
    ['flags and a prompt', ['--model', 'opus', 'fix it'], { persistent: ['--model', 'opus'], prompt: ['fix it'] }],
    ['a lone dash is a word', ['-'], { prompt: ['-'] }],
    [
      'everything after -- is the prompt',
      ['--model', 'opus', '--', '--name', 'x'],
      { persistent: ['--model', 'opus'], prompt: ['--name', 'x'] },
    ],
    [
      '--settings is kept aside for merging',
      ['--settings', '{"a":1}', '--verbose'],
      { userSettings: '{"a":1}', persistent: ['--verbose'] },
    ],
    ['--settings=', ['--settings={"a":1}'], { userSettings: '{"a":1}' }],
  ])('%s', (_name, args, expected) => {
    expect(parseClaudePassthrough(args)).toEqual({ ...none, ...expected });
  });

  it.each<[string[], string]>([
    [['--continue'], '--continue'],
    [['-c'], '-c'],
    [['-r', 'abc'], '-r'],
    [['--resume'], '--resume'],
    [['--resume=abc'], '--resume'],
    [['--session-id', 'u'], '--session-id'],
    [['--session-id=u'], '--session-id'],
    [['--fork-session'], '--fork-session'],
    [['--from-pr', '12'], '--from-pr'],
    [['-p', 'hi'], '-p'],
    [['--print'], '--print'],
    [['--bg'], '--bg'],
    [['--background'], '--background'],
    [['-w'], '-w'],
    [['--worktree=x'], '--worktree'],
    [['--bare'], '--bare'],
    [['--model', 'x', '--safe-mode'], '--safe-mode'],
    [['-cp'], '-c'], // a cluster of short flags is checked letter by letter
    [['-vc'], '-c'],
    [['--model', 'x', '-p'], '-p'],
  ])('refuses %j (%s) with E_USAGE and a hint', (args, flag) => {
    let err: unknown;
    try {
      parseClaudePassthrough(args);
    } catch (e) {
      err = e;
    }
    expect(isKlaudeError(err)).toBe(true);
    expect(err).toMatchObject({
      code: 'E_USAGE',
      message: `claude flag '${flag}' can't be passed through klaude`,
      exitCode: 2,
    });
    expect((err as { hint?: string }).hint).toBeTruthy();
  });

  it.each([['--model'], ['--settings'], ['--name']])('refuses %s without its value', (flag) => {
    expect(() => parseClaudePassthrough([flag])).toThrow(/needs a value/);
  });
});

describe('buildLaunchArgs', () => {
  const p = parseClaudePassthrough(['--model', 'opus', '--add-dir', 'a', '--name', 'job', 'fix', 'it']);
  const S = '{"hooks":{}}';
  it.each<[string, Parameters<typeof buildLaunchArgs>[1], boolean, string[]]>([
    [
      'first, fresh: everything',
      { kind: 'new', claudeSessionId: 'u1' },
      true,
      ['--session-id', 'u1', '--settings', S, '--model', 'opus', '--add-dir', 'a', '--name', 'job', '--', 'fix it'],
    ],
    [
      'first, resumed (--resume-last): the prompt, no --name',
      { kind: 'resume', claudeSessionId: 'u1' },
      true,
      ['--resume', 'u1', '--settings', S, '--model', 'opus', '--add-dir', 'a', '--', 'fix it'],
    ],
    [
      'a checkout relaunch: the persistent flags only',
      { kind: 'resume', claudeSessionId: 'u2' },
      false,
      ['--resume', 'u2', '--settings', S, '--model', 'opus', '--add-dir', 'a'],
    ],
    [
      'a relaunch of a never-used id',
      { kind: 'new', claudeSessionId: 'u3' },
      false,
      ['--session-id', 'u3', '--settings', S, '--model', 'opus', '--add-dir', 'a'],
    ],
  ])('%s', (_name, mode, first, expected) => {
    expect(buildLaunchArgs(p, mode, S, first)).toEqual(expected);
  });

  it('puts the prompt after -- so a variadic flag cannot swallow it', () => {
    const args = buildLaunchArgs(
      parseClaudePassthrough(['--allowedTools', 'Bash', '--', 'go']),
      { kind: 'new', claudeSessionId: 'u' },
      S,
      true,
    );
    expect(args.slice(-4)).toEqual(['--allowedTools', 'Bash', '--', 'go']);
  });
});

describe('root-only flags (the root persona is not a checked-out agent’s)', () => {
  const S = '{}';
  const p = parseClaudePassthrough([
    '--agent',
    'reviewer',
    '--model',
    'opus',
    '--append-system-prompt',
    '-be brief-',
    '--system-prompt-file=p.md',
    '--add-dir',
    'a',
    'b',
    '--debug',
    '--system-prompt',
    'you are root',
    '--verbose',
  ]);
  const resume = { kind: 'resume', claudeSessionId: 'u' } as const;

  it('go with launches of the root', () => {
    expect(buildLaunchArgs(p, resume, S, false, { root: true }).slice(4)).toEqual(p.persistent);
    expect(buildLaunchArgs(p, resume, S, false).slice(4)).toEqual(p.persistent); // root unless told otherwise
  });

  it('are left out, with their values, for a checked-out agent; everything else stays', () => {
    expect(buildLaunchArgs(p, resume, S, false, { root: false }).slice(4)).toEqual([
      '--model',
      'opus',
      '--add-dir',
      'a',
      'b',
      '--debug',
      '--verbose',
    ]);
  });
});
