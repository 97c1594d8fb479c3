// The candidates Tab offers (commands/setup/completion-words.ts) from the real command table, the line
// splitting bash's line goes through, and that the table says what every positional is.
import { describe, expect, it } from 'vitest';
import { splitLine } from '../../src/commands/setup/complete.js';
import { completeWords, type Candidate, type Lookups } from '../../src/commands/setup/completion-words.js';
import { COMMANDS } from '../../src/commands/table/registry.js';
import type { SessionPick, SessionToComplete } from '../../src/db/repos/completion.js';

const ROWS: Record<SessionPick, SessionToComplete[]> = {
  any: [
    { id: '01KAAAAAAAAAAAAAAABNX8ZG33', status: 'done', type: 'general', shown: 'auth refactor' },
    { id: '01KAAAAAAAAAAAAAAABNQ4HH21', status: 'waiting', type: 'reviewer', shown: 'review src/db' },
    { id: '01KAAAAAAAAAAAAAAA7XQ2ABCD', status: 'running', type: 'general', shown: '' },
  ],
  waiting: [{ id: '01KAAAAAAAAAAAAAAABNQ4HH21', status: 'waiting', type: 'reviewer', shown: 'review src/db' }],
  active: [
    { id: '01KAAAAAAAAAAAAAAABNQ4HH21', status: 'waiting', type: 'reviewer', shown: 'review src/db' },
    { id: '01KAAAAAAAAAAAAAAA7XQ2ABCD', status: 'running', type: 'general', shown: '' },
  ],
};

function lookups(): Lookups & { asked: SessionPick[] } {
  const asked: SessionPick[] = [];
  return {
    asked,
    sessions: (pick) => (asked.push(pick), ROWS[pick]),
    agentTypes: () => [{ word: 'general', description: 'a plain agent' }, { word: 'reviewer' }],
    runtimes: () => ['claude', 'codex', 'gemini', 'cursor', 'opencode'],
  };
}

/** The words offered after `klaude <line>` (the line's last word is the one being completed). */
function offer(line: string, look = lookups()): string[] {
  return completeWords(COMMANDS, splitLine(line), look).candidates.map((c: Candidate) => c.word);
}

describe('commands', () => {
  it('completes command names from the table; plumbing is left out', () => {
    expect(offer('ch')).toEqual(['checkout']);
    expect(offer('st')).toEqual(['start', 'status']);
    const all = offer('');
    expect(all).toContain('completion');
    expect(all).toContain('help');
    expect(all).not.toContain('hook');
    expect(all).not.toContain('');
    expect(all).toHaveLength(COMMANDS.filter((c) => c.name && !c.plumbing).length + 1);
    expect(offer('help ch')).toEqual(['checkout']);
    expect(offer('hook ')).toEqual([]);
    expect(offer('nosuch ')).toEqual([]);
  });

  it("describes each with its summary's first line, cut to fit", () => {
    const c = completeWords(COMMANDS, ['che'], lookups()).candidates[0]!;
    expect(c.description).toMatch(/^switch the foreground Claude to a session's conversation/);
    expect(c.description!.length).toBeLessThanOrEqual(72);
  });
});

describe('flags', () => {
  it("offers a command's long flags, short ones once a dash is typed, and leaves out those given", () => {
    expect(offer('logs X --fo')).toEqual(['--follow']);
    expect(offer('logs -')).toEqual(
      expect.arrayContaining(['--follow', '-f', '--summary', '-s', '--raw', '--lines', '-n', '--help']),
    );
    expect(offer('sessions --all --')).toEqual(['--verbose', '--projects', '--json', '--help']);
    expect(offer('sessions -v --')).not.toContain('--verbose');
    expect(offer('logs X --')).not.toContain('--help'); // after a positional, --help is text
  });

  it("offers klaude's own flags and --version at the top", () => {
    expect(offer('--re')).toEqual(['--resume-last', '--resume']);
    expect(offer('-')).toEqual(expect.arrayContaining(['--continue', '-c', '--help', '--version']));
  });

  it('offers the flags where a command takes no positional, and nothing after `--`', () => {
    expect(offer('sessions ')).toEqual(['--verbose', '--all', '--projects', '--json', '--help']);
    expect(offer('start general "fix it" -- ')).toEqual([]);
    expect(offer('start general -- -')).toEqual([]);
    expect(offer('-- ')).toEqual([]);
  });
});

describe('values', () => {
  it("completes a flag's value from what the table says it is", () => {
    expect(offer('start --runtime ')).toEqual(['claude', 'codex', 'gemini', 'cursor', 'opencode']);
    expect(offer('start --runtime co')).toEqual(['codex']);
    expect(offer('start --runtime=co')).toEqual(['--runtime=codex']);
    expect(offer('--resume BN')).toEqual(['BNX8ZG33', 'BNQ4HH21']);
    expect(offer('start --model ')).toEqual([]); // free text: nothing to offer
    const file = completeWords(COMMANDS, splitLine('start general --prompt-file '), lookups());
    expect(file).toEqual({ candidates: [], files: true });
  });

  it("takes a value flag's next word as its value, short flags and clusters included", () => {
    expect(offer('start --model opus ')).toEqual(['general', 'reviewer']);
    expect(offer('logs -n 5 ')).toEqual(['BNX8ZG33', 'BNQ4HH21', '7XQ2ABCD']);
    expect(offer('logs -n5 ')).toEqual(['BNX8ZG33', 'BNQ4HH21', '7XQ2ABCD']);
    expect(offer('logs -sn 5 ')).toEqual(['BNX8ZG33', 'BNQ4HH21', '7XQ2ABCD']);
  });

  it('completes positionals in order: agent type, then free text; fixed words', () => {
    expect(offer('start re')).toEqual(['reviewer']);
    expect(offer('start reviewer ')).toEqual([]);
    expect(offer('worktree ')).toEqual(['list', 'prune']);
    expect(offer('completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(offer('completion zsh ')).toEqual([]);
    // This round's commands: a priority's levels, queue's and zone's verbs.
    expect(offer('start general hi --priority ')).toEqual(['high', 'normal', 'low']);
    expect(offer('queue move 7XQ2 --priority h')).toEqual(['high']);
    expect(offer('queue ')).toEqual(['move']);
    expect(offer('zone ')).toEqual(['add', 'list', 'check', 'setup', 'remove']);
    expect(completeWords(COMMANDS, splitLine('message 7XQ2 hi --image '), lookups())).toEqual({
      candidates: [],
      files: true,
    });
  });
});

describe('session ids', () => {
  it('offers the ids listings show, matched without case, with status, type and title', () => {
    const look = lookups();
    const c = completeWords(COMMANDS, splitLine('logs bn'), look).candidates;
    expect(c).toEqual([
      { word: 'BNX8ZG33', description: 'done · general · auth refactor' },
      { word: 'BNQ4HH21', description: 'waiting · reviewer · review src/db' },
    ]);
    expect(look.asked).toEqual(['any']);
    expect(offer('logs 01kaaaaaaaaaaaaaaa7x')).toEqual(['01KAAAAAAAAAAAAAAA7XQ2ABCD']);
    expect(offer('logs ZZ')).toEqual([]);
  });

  it('asks for the sessions each command can act on', () => {
    const ask = (line: string): SessionPick[] => {
      const look = lookups();
      completeWords(COMMANDS, splitLine(line), look);
      return look.asked;
    };
    expect(ask('approve ')).toEqual(['waiting']);
    expect(ask('deny ')).toEqual(['waiting']);
    expect(ask('interrupt ')).toEqual(['active']);
    expect(ask('checkout ')).toEqual(['any']);
    expect(ask('message ')).toEqual(['any']);
    expect(ask('message 7XQ2 ')).toEqual([]); // the prompt
    // (review offered its flags, and bash put their common "--" on the line)
    expect(ask('review ')).toEqual(['any']);
    expect(ask('queue move ')).toEqual(['any']);
    expect(ask('wait 7XQ2 BNX8 ')).toEqual(['any']); // <id…> repeats
    expect(ask('logs 7XQ2 ')).toEqual([]); // one id only: the flags instead
    expect(ask('worktree prune ')).toEqual(['any']);
    expect(ask('sessions ')).toEqual([]);
  });
});

describe('the command table', () => {
  it('says what every positional a usage line names completes to', () => {
    for (const spec of COMMANDS.filter((c) => c.name && !c.plumbing)) {
      const shown = spec.usage.replace(/^klaude( \S+)?/, '');
      const named = /<id|\[id/.exec(shown);
      if (named)
        expect([spec.name, spec.operands?.some((o) => typeof o === 'string' && o.startsWith('session'))]).toEqual([
          spec.name,
          true,
        ]);
      if ((spec.minArgs ?? 0) > 0) expect([spec.name, spec.operands?.length ?? 0]).not.toEqual([spec.name, 0]);
      for (const [name, f] of Object.entries(spec.flags)) {
        if (f.valueName === 'file') expect([spec.name, name, f.completes]).toEqual([spec.name, name, 'file']);
        if (f.valueName === 'id' && name !== 'instance')
          expect([spec.name, name, f.completes]).toEqual([spec.name, name, 'session']);
      }
    }
  });
});

describe('splitLine (bash gives klaude the line)', () => {
  it('splits as a POSIX shell does; the last word is open or empty', () => {
    expect(splitLine('klaude ch')).toEqual(['klaude', 'ch']);
    expect(splitLine('klaude logs ')).toEqual(['klaude', 'logs', '']);
    expect(splitLine(`klaude start general "fix \\"it\\" now" 'a b' c\\ d `)).toEqual([
      'klaude',
      'start',
      'general',
      'fix "it" now',
      'a b',
      'c d',
      '',
    ]);
    expect(splitLine('klaude start general "open quo')).toEqual(['klaude', 'start', 'general', 'open quo']);
    expect(splitLine('klaude  start\t--runtime=co')).toEqual(['klaude', 'start', '--runtime=co']);
  });
});
