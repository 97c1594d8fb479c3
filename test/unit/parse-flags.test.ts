import { describe, expect, it } from 'vitest';
import { parseCommandLine, parseFlags } from '../../src/commands/cli/parse-flags.js';
import type { CommandSpec } from '../../src/commands/cli/types.js';

const spec: CommandSpec = {
  name: 'x',
  summary: '',
  usage: 'klaude x',
  flags: {
    json: { type: 'boolean', description: '' },
    verbose: { type: 'boolean', shortFlag: 'v', description: '' },
    follow: { type: 'boolean', shortFlag: 'f', description: '' },
    resumeLast: { type: 'boolean', description: '' },
    lines: { type: 'number', shortFlag: 'n', description: '' },
    timeout: { type: 'number', default: 30, description: '' },
    filter: { type: 'string', description: '' },
    tag: { type: 'string', isMultiple: true, description: '' },
  },
  load: async () => ({ run: async () => 0 }),
};

describe('parseFlags', () => {
  it.each<[string[], Record<string, unknown>, string[]]>([
    [[], { timeout: 30 }, []],
    [['a', '--json', 'b'], { json: true, timeout: 30 }, ['a', 'b']],
    [['-vf', 'id'], { verbose: true, follow: true, timeout: 30 }, ['id']],
    [['--resume-last'], { resumeLast: true, timeout: 30 }, []],
    [['--resumeLast'], { resumeLast: true, timeout: 30 }, []],
    [['--no-json'], { json: false, timeout: 30 }, []],
    [['-n', '20', 'id'], { lines: 20, timeout: 30 }, ['id']],
    [['--lines=5'], { lines: 5, timeout: 30 }, []],
    [['--timeout', '2.5'], { timeout: 2.5 }, []],
    [['--filter', 'a b'], { filter: 'a b', timeout: 30 }, []],
    [['--filter=x=y'], { filter: 'x=y', timeout: 30 }, []],
    [['--tag', 'a', '--tag', 'b'], { tag: ['a', 'b'], timeout: 30 }, []],
  ])('%j', (argv, flags, input) => {
    expect(parseFlags(spec, argv)).toEqual({ flags, input });
  });

  it('a bad string flag value is a usage error, not a crash', () => {
    expect(() => parseFlags(spec, ['--filter', '--json'])).toThrow(/--filter needs a value/);
  });

  it('leaves a bad number as NaN for the caller to report', () => {
    expect(Number.isNaN(parseFlags(spec, ['-n', 'many']).flags.lines)).toBe(true);
  });

  it('a string flag without its value is a usage error', () => {
    expect(() => parseFlags(spec, ['--filter'])).toThrow(/--filter needs a value/);
  });
});

const start: CommandSpec = {
  name: 'start',
  summary: '',
  usage: 'klaude start <type> "<prompt>"',
  flags: {
    detach: { type: 'boolean', shortFlag: 'd', description: '' },
    model: { type: 'string', description: '' },
  },
  load: async () => ({ run: async () => 0 }),
};
const root: CommandSpec = {
  ...start,
  name: '',
  passthrough: true,
  flags: { resumeLast: { type: 'boolean', description: '' } },
};

describe('parseCommandLine', () => {
  it.each<[string, string[], { help?: boolean; flags?: Record<string, unknown>; input?: string[] }]>([
    ['a prompt starting with "- "', ['general', '- list item'], { input: ['general', '- list item'] }],
    [
      'a prompt with whitespace before a flag',
      ['general', '-x y', '-d'],
      { flags: { detach: true }, input: ['general', '-x y'] },
    ],
    ['`-` alone', ['general', '-'], { input: ['general', '-'] }],
    ['`--` ends flags', ['general', '--', '-h'], { help: false, input: ['general', '-h'] }],
    ['`--` then a flag-like prompt', ['general', '--', '--detach'], { flags: {}, input: ['general', '--detach'] }],
    ['-h after a positional is text', ['general', '-h'], { help: false, input: ['general', '-h'] }],
    [
      '--help after a positional is text',
      ['general', 'x', '--help'],
      { help: false, input: ['general', 'x', '--help'] },
    ],
    ['-h before positionals asks for help', ['-h', 'general'], { help: true, input: ['general'] }],
    ['--help alone', ['--help'], { help: true, input: [] }],
    [
      'a flag value with whitespace and a dash',
      ['--model', '-a b', 'general'],
      { flags: { model: '-a b' }, input: ['general'] },
    ],
  ])('%s', (_name, argv, want) => {
    expect(parseCommandLine(start, argv)).toMatchObject({ passthrough: [], ...want });
  });

  it('`--help` right after an action word asks for help; after its operand it is text', () => {
    const queue: CommandSpec = { ...start, name: 'queue', subcommands: ['move'] };
    for (const argv of [
      ['move', '--help'],
      ['move', '-h'],
      ['-h', 'move', 'x'],
    ]) {
      expect(parseCommandLine(queue, argv)).toMatchObject({ help: true });
      expect(parseCommandLine(queue, [...argv, '--model=x'])).toMatchObject({ help: true });
    }
    expect(parseCommandLine(queue, ['move', 'x', '--help'])).toMatchObject({ help: false });
    expect(parseCommandLine(queue, ['move', 'x', '--help', '--model=x'])).toMatchObject({ help: false });
    // A word that names no action keeps the rule: text after the first word.
    expect(parseCommandLine(queue, ['other', '--help'])).toMatchObject({ help: false });
  });

  it('of `--x` and `--no-x` the last wins', () => {
    expect(parseCommandLine(start, ['general', 'x', '--detach', '--no-detach'])).toMatchObject({
      flags: { detach: false },
    });
    expect(parseCommandLine(start, ['general', 'x', '--no-detach', '--detach'])).toMatchObject({
      flags: { detach: true },
    });
  });

  it('for klaude itself, what follows `--` goes to claude', () => {
    expect(parseCommandLine(root, ['--resume-last', '--', '--model', 'x', '-h'])).toEqual({
      help: false,
      flags: { resumeLast: true },
      input: [],
      passthrough: ['--model', 'x', '-h'],
    });
  });

  it('an unknown flag is one line with a did-you-mean', () => {
    expect(() => parseCommandLine(start, ['general', 'x', '--detatch'])).toThrow(
      expect.objectContaining({
        code: 'E_UNKNOWN_FLAG',
        message: "unknown flag '--detatch' for 'klaude start'",
        hint: expect.stringContaining('did you mean `--detach`?'),
      }),
    );
    expect(() => parseCommandLine(start, ['general', '-q'])).toThrow(
      expect.objectContaining({
        code: 'E_UNKNOWN_FLAG',
        hint: expect.stringContaining("to pass '-q' as text, put it after `--`"),
      }),
    );
  });
});

describe('the usual command lines, read without parseArgs', () => {
  // Plain words and exact boolean flags skip node's parser (parse-flags.ts `plain`); `--timeout=30`
  // (its default) sends the same line through parseArgs: both must read it alike.
  const pool = ['a', 'b', '--json', '-v', '-f', '--help', '-h', '--resume-last', '--resumeLast', '-vf', '-x', '--nope'];
  const lines: string[][] = [[]];
  for (const t of pool) lines.push([t]);
  for (const t of pool) for (const u of pool) lines.push([t, u], [t, 'a', u]);
  it.each(lines)('%j', (...argv) => {
    const viaNode = (): unknown => parseCommandLine(spec, [...argv, '--timeout=30']);
    let expected: unknown;
    try {
      expected = viaNode();
    } catch (e) {
      expect(() => parseCommandLine(spec, argv)).toThrow((e as Error).message);
      return;
    }
    expect(parseCommandLine(spec, argv)).toEqual(expected);
  });
});
