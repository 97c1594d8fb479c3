// Proves the harness: the real interactive `claude` under a PTY, its screen read through @xterm/headless,
// answering from the loopback stand-in in a temp home.
import { describe, expect, it } from 'vitest';
import { claudeAtLeast, claudeBin } from '../support/claude-bin.js';
import { spawnPty } from '../support/pty-driver.js';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes();

/** The empty input prompt between its two rules, as the idle TUI draws it. */
const IDLE_PROMPT = /^❯\s*$/m;

describe('harness: real interactive claude under the PTY driver', () => {
  it('shows its prompt, answers a typed prompt from the stand-in, re-lays out on resize and ends on SIGTERM', async () => {
    // (No config.yaml: this is claude alone, klaude is not in it.)
    const home = fx.home({ allowBash: true, config: false });
    const mock = fx.mock;
    const word = `pty${Math.random().toString(36).slice(2, 8)}`;
    mock.setResponder((req) => ({ text: `Stand-in says hello to ${req.prompt.replace('greet ', '')}` }));

    const term = home.own(spawnPty(claudeBin(), [], { cwd: home.projectDir, env: home.env, cols: 100, rows: 30 }));
    await term.waitForText('? for shortcuts', { timeoutMs: 45_000 });
    await term.waitForText(IDLE_PROMPT);
    expect(term.text()).toContain(home.projectDir); // the welcome box names the trusted project
    expect(term.text()).not.toMatch(/trust this folder|Choose the text style|Select login method/i);
    // 2.1.332 draws in the alternate screen (docs/claude-versions.md); 2.1.197 in the normal one.
    expect(term.bufferType()).toBe(claudeAtLeast('2.1.332') ? 'alternate' : 'normal');

    term.type(`greet ${word}`);
    await term.waitForText(`greet ${word}`);
    term.press('enter');
    await term.waitForText(`Stand-in says hello to ${word}`, { timeoutMs: 45_000 });
    const main = await mock.waitForRequest((r) => !r.isSideRequest && r.kind === 'messages', 5_000);
    expect(main.prompt).toBe(`greet ${word}`);

    // Resize. xterm reflows the old frame at once (100-wide rules become a 70 and a 30 piece), so wait
    // for claude's own redraw: whole 70-wide rules, no remnants, the footer back on one line.
    const ruleOf = (cols: number) => new RegExp(`^─{${cols}}$`, 'm');
    expect(term.text()).toMatch(ruleOf(100));
    term.resize(70, 20);
    expect(term.lines()).toHaveLength(20);
    // The footer: 2.1.197 keeps `/effort` at its end; 2.1.332 drops the `← for agents` hint at 70.
    const footer = claudeAtLeast('2.1.332')
      ? /^ {2}⏸ manual mode on · \? for shortcuts$/m
      : /\? for shortcuts.*\/effort$/m;
    await term.waitFor(
      (s) => ruleOf(70).test(s) && !/^─{1,69}$/m.test(s) && footer.test(s),
      'claude redrawn at 70 columns',
      { timeoutMs: 20_000 },
    );
    expect(term.lines().every((l) => l.length <= 70)).toBe(true);
    expect(term.text()).toContain(`Stand-in says hello to ${word}`);

    term.kill('SIGTERM');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(143);
    await term.waitForText('claude --resume');
    expect(term.hasExited()).toBe(true);
    term.resize(80, 24); // a no-op after exit (node-pty would throw EBADF)
  });
});
