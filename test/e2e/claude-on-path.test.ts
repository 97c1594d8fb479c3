// The foreground claude a supervisor test runs is the one this pass tests: klaude looks `claude` up
// on PATH, and npm's PATH also holds node_modules/.bin/claude (the pinned one), so the current
// pass would quietly test the pinned claude in the foreground if the homes did not put theirs first.
import { realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveClaudeBinary } from '../../src/config/claude-binary.js';
import type { Config } from '../../src/config/schema.js';
import { CLAUDE_FLAVOUR, claudeBin } from '../support/claude-bin.js';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes();

describe(`the claude on a supervisor home's PATH (${CLAUDE_FLAVOUR})`, () => {
  it('is the binary this pass tests, ahead of any other claude on the PATH', () => {
    const home = fx.home({ supervisor: true, config: false });
    const found = resolveClaudeBinary({} as Config, home.env);
    expect(realpathSync(found)).toBe(realpathSync(claudeBin()));
  });
});
