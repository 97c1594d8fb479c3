import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../src/commands/parse-flags.js';
import type { CommandSpec } from '../../src/commands/types.js';

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

  it('leaves a bad number as NaN for the caller to report', () => {
    expect(Number.isNaN(parseFlags(spec, ['-n', 'many']).flags.lines)).toBe(true);
  });

  it('a string flag without its value is a usage error', () => {
    expect(() => parseFlags(spec, ['--filter'])).toThrow(/--filter needs a value/);
  });
});
