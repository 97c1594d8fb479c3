// Every way out of `klaude talk` gives the shell a working terminal (cooked mode, echo, cursor
// shown): the detach key, SIGTERM to talk (the session keeps running), and the PTY server dying
// under it (talk says so).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { READY, waitForDb } from './supervisor-helpers.js';
import { alive, claudePidOf, ptyRows, sessionWithConversation, stopHosts } from './talk-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes();
let home: AgentHome;
let session: { id: string };
let term: PtySession | undefined;

beforeAll(async () => {
  home = fx.home({ supervisor: true });
  session = await sessionWithConversation(home, 'signals-marker-7');
});
afterAll(async () => {
  await term?.dispose();
  if (home && session) await stopHosts(home, session.id);
});

async function shellPrompt(t: PtySession): Promise<void> {
  await t.waitFor((s) => /SHELL\$( |$)/.test(s.trimEnd().split('\n').at(-1) ?? ''), 'the shell prompt', {
    timeoutMs: 20_000,
  });
}

async function atPrompt(t: PtySession, command: string, marker: RegExp): Promise<string> {
  t.type(`\x15${command}\r`);
  await t.waitForText(marker, { timeoutMs: 20_000 });
  return marker.exec(t.text())![1]!;
}

/** icanon/echo as the shell sees them, and the exit code of the last command. */
async function afterTalk(t: PtySession): Promise<{ rc: string; modes: string }> {
  await shellPrompt(t);
  const rc = await atPrompt(t, 'echo "r""c=$?."', /rc=(\d+)\./);
  const modes = await atPrompt(
    t,
    `echo "MO""DES=$(stty -a | tr -s ' ;\\n' '\\n' | grep -xE -- '-?(icanon|echo)' | paste -sd, -)."`,
    /MODES=([^.]*)\./,
  );
  t.type('\x15clear\r');
  await t.waitForGone(/MODES=/);
  return { rc, modes };
}

/** Pids whose parent is `pid` (the talk process under the shell). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

describe('klaude talk: leaving the terminal usable', () => {
  it('after the detach key, SIGTERM, and the PTY server dying', async () => {
    term = spawnPty('bash', ['--norc', '--noprofile', '-i'], {
      cwd: home.projectDir,
      env: { ...home.env, PS1: 'SHELL$ ', HISTFILE: '/dev/null' },
      cols: 100,
      rows: 30,
    });
    await shellPrompt(term);
    const talk = `${process.execPath} ${KLAUDE_CLI} talk ${session.id.slice(-6)}\r`;

    term.type(talk);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const claudePid = claudePidOf(home, session.id);
    term.press('ctrl-]');
    expect(await afterTalk(term)).toEqual({ rc: '0', modes: 'icanon,echo' });
    expect(term.cursorVisible()).toBe(true);

    // SIGTERM to talk: it lets go of the session (which runs on) and of the terminal.
    term.type(talk);
    await term.waitForText('Reply to: signals-marker-7', { timeoutMs: 20_000 });
    const [talkPid] = childrenOf(term.pid);
    expect(talkPid).toBeDefined();
    process.kill(talkPid!, 'SIGTERM');
    expect(await afterTalk(term)).toEqual({ rc: '143', modes: 'icanon,echo' });
    expect(term.cursorVisible()).toBe(true);
    expect(alive(claudePid)).toBe(true);

    // The PTY server killed outright: talk reports the lost session and still restores the terminal.
    term.type(talk);
    await term.waitForText('Reply to: signals-marker-7', { timeoutMs: 20_000 });
    const serverPid = ptyRows(home, session.id)[0]!.pid;
    process.kill(serverPid, 'SIGKILL');
    await term.waitForText(/lost the connection to \S+ PTY session|exited \(/, { timeoutMs: 20_000 });
    const after = await afterTalk(term);
    expect(after.modes).toBe('icanon,echo');
    expect(after.rc).not.toBe('0');
    expect(term.cursorVisible()).toBe(true);
    // Its claude loses the PTY and ends; the next command's recovery marks the row lost.
    await waitForDb('claude gone with its PTY', () => !alive(claudePid), 20_000);
  });
});
