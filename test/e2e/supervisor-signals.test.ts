// Signals to the supervisor: SIGTERM stops claude (SIGKILL after the grace if it must) and
// gives the shell back a sane terminal; SIGKILL leaves rows that the next command marks
// stale; claude's exit code is klaude's.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import {
  instances,
  processes,
  READY,
  sessions,
  submit,
  shellPrompt,
  startShell,
  waitForDb,
} from './supervisor-helpers.js';

const fx = useAgentHomes();
let term: PtySession | undefined;
const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  term = undefined;
});

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A supervisor home: klaude finds the real claude on PATH (no claude.binary). */
const setup = (): AgentHome => fx.home({ supervisor: true, binary: null });

/**
 * A stand-in "claude" that takes the terminal like a TUI does (raw mode, hidden cursor,
 * bracketed paste) and then: 'ignore-term' ignores SIGTERM, 'exit:<n>' exits with n.
 */
function stubClaude(h: AgentHome, behaviour: string): void {
  const file = join(h.root, 'stub-claude');
  writeFileSync(
    file,
    `#!${process.execPath}
const mode = ${JSON.stringify(behaviour)};
if (mode.startsWith('exit:')) { console.log('STUB EXITING'); process.exit(Number(mode.slice(5))); }
process.on('SIGTERM', () => process.stdout.write('STUB IGNORES SIGTERM\\r\\n'));
process.stdin.setRawMode(true);
process.stdin.resume();
process.stdout.write('\\x1b[?25l\\x1b[?2004hSTUB READY ' + process.pid + '\\r\\n');
`,
  );
  chmodSync(file, 0o755);
  h.configure({ binary: file, config: 'switch:\n  graceSeconds: 1\n' });
}

/** Run a command at the shell prompt and wait for the marker it prints (Ctrl-U first: see shellPrompt). */
async function atPrompt(t: PtySession, command: string, marker: RegExp): Promise<void> {
  t.type(`\x15${command}\r`);
  await t.waitForText(marker, { timeoutMs: 20_000 });
}

/** The terminal's icanon/echo flags as the shell sees them after klaude, e.g. 'icanon,echo'. */
async function ttyModes(t: PtySession): Promise<string> {
  // "MO""DES" so the echoed command line itself doesn't match.
  await atPrompt(
    t,
    `echo "MO""DES=$(stty -a | tr -s ' ;\\n' '\\n' | grep -xE -- '-?(icanon|echo)' | paste -sd, -)."`,
    /MODES=[^.]*\./,
  );
  return /MODES=([^.]*)\./.exec(t.text())![1]!;
}

describe('klaude: signals and recovery', () => {
  it('SIGTERM stops the real claude and hands the shell a working terminal', async () => {
    const h = setup();
    term = await startShell(h);
    term.type(`${process.execPath} ${KLAUDE_CLI}\r`);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const [inst] = instances(h);
    const claudePid = processes(h)[0]!.pid;

    process.kill(inst!.pid, 'SIGTERM');
    await shellPrompt(term);
    await atPrompt(term, 'echo "rc=$?"', /rc=\d+/);
    expect(term.text()).toContain('rc=143');
    expect(term.cursorVisible()).toBe(true);
    expect(await ttyModes(term)).toBe('icanon,echo');
    expect(isAlive(claudePid)).toBe(false);
    expect(existsSync(inst!.socket_path)).toBe(false);
    expect(instances(h)).toMatchObject([{ status: 'exited', exit_code: 143 }]);
    expect(processes(h)).toMatchObject([{ pid: claudePid, exit_code: 143, is_current: 0 }]);
  });

  it('ctrl+z suspends claude and klaude together (the shell gets the terminal), fg brings both back', async () => {
    const h = setup();
    term = await startShell(h);
    term.type(`${process.execPath} ${KLAUDE_CLI}\r`);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const [inst] = instances(h);

    term.press('ctrl-z');
    await term.waitForText(/Stopped\s+\S*node \S*cli\.js/, { timeoutMs: 20_000 });
    await shellPrompt(term);
    await atPrompt(term, 'echo "jo""bs=$(jobs | wc -l)"', /jobs=\d+/);
    expect(term.text()).toContain('jobs=1');
    expect(isAlive(inst!.pid)).toBe(true);

    term.type('\x15fg\r'); // Ctrl-U first: see shellPrompt
    await term.waitForText(READY, { timeoutMs: 20_000 });
    await submit(term, 'after fg');
    await term.waitForText('Reply to: after fg', { timeoutMs: 45_000 });
    await submit(term, '/exit');
    await shellPrompt(term);
    await atPrompt(term, 'echo "rc=$?"', /rc=\d+/);
    expect(term.text()).toContain('rc=0');
    expect(instances(h)).toMatchObject([{ status: 'exited', exit_code: 0 }]);
  });

  it('SIGKILLs a claude that ignores SIGTERM after the grace, and restores raw mode and cursor', async () => {
    const h = setup();
    stubClaude(h, 'ignore-term');
    term = await startShell(h);
    term.type(`${process.execPath} ${KLAUDE_CLI}\r`);
    await term.waitForText(/STUB READY \d+/, { timeoutMs: 20_000 });
    expect(term.cursorVisible()).toBe(false);
    const stubPid = Number(/STUB READY (\d+)/.exec(term.text())![1]);
    strays.push(stubPid);
    const [inst] = instances(h);

    const t0 = Date.now();
    process.kill(inst!.pid, 'SIGTERM');
    await term.waitForText('STUB IGNORES SIGTERM');
    await shellPrompt(term);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900); // the grace (1 s) was given
    await atPrompt(term, 'echo "rc=$?"', /rc=\d+/);
    expect(term.text()).toContain('rc=143');
    expect(isAlive(stubPid)).toBe(false);
    expect(term.cursorVisible()).toBe(true);
    expect(await ttyModes(term)).toBe('icanon,echo');
    expect(processes(h)).toMatchObject([{ pid: stubPid, exit_code: null, signal: 'SIGKILL' }]);
    expect(instances(h)).toMatchObject([{ status: 'exited', exit_code: 143 }]);
  });

  it('exits with claude’s exit code', async () => {
    const h = setup();
    stubClaude(h, 'exit:7');
    term = h.own(spawnPty(process.execPath, [KLAUDE_CLI], { cwd: h.projectDir, env: h.env }));
    expect((await term.exited).exitCode).toBe(7);
    expect(term.text()).toContain('STUB EXITING');
    expect(instances(h)).toMatchObject([{ status: 'exited', exit_code: 7 }]);
    expect(processes(h)).toMatchObject([{ exit_code: 7 }]);
  });

  it('SIGKILL of the supervisor leaves rows that `klaude instances --all` marks stale', async () => {
    const h = setup();
    stubClaude(h, 'ignore-term');
    term = h.own(spawnPty(process.execPath, [KLAUDE_CLI], { cwd: h.projectDir, env: h.env }));
    await term.waitForText(/STUB READY \d+/, { timeoutMs: 20_000 });
    const stubPid = Number(/STUB READY (\d+)/.exec(term.text())![1]);
    strays.push(stubPid);
    const [inst] = instances(h);

    process.kill(inst!.pid, 'SIGKILL');
    await term.exited;
    // The orphan loses its terminal (SIGHUP); make sure it is gone either way.
    try {
      process.kill(stubPid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await waitForDb('the orphaned claude to be gone', () => !isAlive(stubPid));
    expect(instances(h)).toMatchObject([{ status: 'running' }]); // nobody cleaned up

    const listed = await runKlaude(['instances', '--all'], { env: h.env, cwd: h.projectDir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${inst!.id.slice(-8)}\\s+stale\\s+${inst!.pid}`));
    expect(instances(h)).toMatchObject([{ status: 'stale' }]);
    expect(processes(h)).toMatchObject([{ pid: stubPid, signal: 'LOST', is_current: 0 }]);
    expect(sessions(h)).toMatchObject([{ status: 'done' }]);

    const running = await runKlaude(['instances', '--json'], { env: h.env, cwd: h.projectDir });
    expect(JSON.parse(running.stdout)).toEqual([]);
  });
});
