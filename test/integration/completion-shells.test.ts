// `klaude completion bash|zsh|fish` loaded into the real shell, in a PTY, in a temp home with
// sessions: Tab after `klaude ch`, after a flag's start, after the start of a session id (typed in
// lower case), after the start of a file name where a flag takes a file, and the list Tab shows for
// `klaude approve` (only the session waiting for an answer) and `klaude logs` (not the old or
// archived ones). The shells are Debian's bash, zsh and fish (.ci/run installs zsh and fish);
// `klaude` on their PATH is a shim running the built dist/cli.js.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addApproval } from '../../src/db/repos/approvals.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { runProcess } from '../support/run-process.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let h: TempHome;
let env: Record<string, string>;
/**
 * The seeded sessions' ids, as listings show them (their last 8 characters), chosen so that two
 * share a start (`BN`: Tab inserts it and lists both) and the others cannot be mistaken.
 */
const ids = { done: 'BNX8ZG33', waiting: 'BNQ4HH21', old: 'C0DE5678', archived: 'ARCH1VE2' };
const ulid = (shown: string): string => `01KB000000000000${'00'}${shown}`;

beforeAll(() => {
  h = makeTempHome({ prefix: 'klaude-completion-' });
  const bin = path.join(h.root, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'klaude'), `#!/bin/sh\nexec '${process.execPath}' '${KLAUDE_CLI}' "$@"\n`);
  chmodSync(path.join(bin, 'klaude'), 0o755);
  env = {
    ...h.env,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    TERM: 'xterm-256color',
    XDG_CONFIG_HOME: path.join(h.root, 'config'),
    XDG_DATA_HOME: path.join(h.root, 'data'),
    ZDOTDIR: path.join(h.root, 'zdot'),
  };
  writeFileSync(path.join(h.projectDir, 'task-notes.md'), 'a task\n');
  const { db, hash } = seedProject(h);
  try {
    const s = (shown: string, type: string, title: string) =>
      createSession(db, { id: ulid(shown), projectId: hash, type, title }).id;
    const ago = (ms: number): number => Date.now() - ms;
    updateSession(db, s(ids.done, 'general', 'auth refactor'), { status: 'done', endedAt: ago(60_000) });
    const waiting = s(ids.waiting, 'reviewer', 'review src/db');
    updateSession(db, waiting, { status: 'waiting' });
    addApproval(db, { sessionId: waiting, requestId: 'r1', toolName: 'Bash', summary: 'npm test' });
    updateSession(db, s(ids.old, 'general', 'long ago'), { status: 'done', endedAt: ago(30 * 24 * 3600_000) });
    const archived = s(ids.archived, 'general', 'put away');
    updateSession(db, archived, { status: 'done', endedAt: ago(60_000), archivedAt: Date.now() });
  } finally {
    db.close();
  }
});

afterAll(() => h?.cleanup());

/** The shell's line as it is now: the last screen line holding `klaude`. */
function commandLine(s: PtySession): string {
  return (
    s
      .lines()
      .filter((l) => l.includes('klaude '))
      .at(-1) ?? ''
  );
}

/**
 * Type, then Tab until the screen shows `want`: one Tab completes, and where it only inserted what
 * the candidates share (bash), the next one lists them. Bounded: three Tabs, each waited on.
 */
async function typeAndTab(s: PtySession, text: string, want: RegExp): Promise<void> {
  s.type(text);
  for (let tab = 1; ; tab++) {
    s.press('tab');
    try {
      await s.waitFor((screen) => want.test(screen), `${JSON.stringify(text)} + Tab ×${tab} → ${want}`, {
        timeoutMs: tab === 3 ? 30_000 : 3_000,
      });
      return;
    } catch (e) {
      if (tab === 3) throw e;
    }
  }
}

/** Clear the line (Ctrl-U in bash/zsh, and fish: kill to the start) and the screen, for the next case. */
async function clearLine(s: PtySession): Promise<void> {
  s.write('\x15');
  s.press('ctrl-l');
  await s.waitFor((screen) => !/klaude /.test(screen), 'a cleared screen');
}

async function startShell(file: string, args: string[], load: string): Promise<PtySession> {
  const s = spawnPty(file, args, { env, cwd: h.projectDir, cols: 160, rows: 40 });
  s.type(load);
  s.press('enter');
  await s.waitForText('loaded-42', { timeoutMs: 30_000 });
  await clearLine(s);
  return s;
}

const SHELLS = [
  {
    name: 'bash',
    file: '/bin/bash',
    args: ['--norc', '--noprofile', '-i'],
    load: 'PS1="$ "; source <(klaude completion bash); echo loaded-$((6*7))',
  },
  {
    name: 'zsh',
    file: '/usr/bin/zsh',
    args: ['-f', '-i'],
    load: 'PS1="$ "; autoload -Uz compinit && compinit -u -D; source <(klaude completion zsh); echo loaded-$((6*7))',
  },
  {
    name: 'fish',
    file: '/usr/bin/fish',
    args: ['--no-config', '-i'],
    load: 'klaude completion fish | source; echo loaded-(math 6 x 7)',
  },
] as const;

describe.each(SHELLS)('$name completes klaude', ({ file, args, load, name }) => {
  let s: PtySession;
  beforeAll(async () => {
    if (!existsSync(file)) throw new Error(`no ${name} at ${file}: apt-get install -y zsh fish (.ci/run does it)`);
    s = await startShell(file, [...args], load);
  }, 60_000);
  afterAll(async () => s?.dispose());

  it('a command: `klaude ch` + Tab → `klaude checkout `', async () => {
    await typeAndTab(s, 'klaude ch', /klaude checkout/);
    expect(commandLine(s)).toMatch(/klaude checkout\s*$/);
    await clearLine(s);
  });

  it('a flag: `klaude logs --fo` + Tab → `--follow`', async () => {
    await typeAndTab(s, 'klaude logs --fo', /klaude logs --follow/);
    await clearLine(s);
  });

  it('a session id: its first letters in lower case + Tab → the id listings show', async () => {
    const typed = ids.done.slice(0, 3).toLowerCase(); // bnx
    await typeAndTab(s, `klaude logs ${typed}`, new RegExp(`klaude logs ${ids.done}`));
    await clearLine(s);
  });

  it('a file where the flag takes one: `--prompt-file ta` + Tab → `task-notes.md`', async () => {
    await typeAndTab(s, 'klaude start general --prompt-file ta', /--prompt-file task-notes\.md/);
    await clearLine(s);
  });

  it('`klaude approve` + Tab offers only the session waiting for an answer', async () => {
    await typeAndTab(s, 'klaude approve ', new RegExp(`klaude approve ${ids.waiting}`));
    await clearLine(s);
  });

  it('`klaude logs` + Tab Tab lists the listed sessions, not the old or archived ones', async () => {
    await typeAndTab(s, 'klaude logs ', new RegExp(ids.waiting));
    await s.waitForText(ids.done);
    const screen = s.text();
    expect(screen).not.toContain(ids.old);
    expect(screen).not.toContain(ids.archived);
    if (name !== 'bash') expect(screen).toContain('review src/db'); // descriptions
    await clearLine(s);
  });
});

describe('klaude __complete for bash', () => {
  // bash splits `--runtime=co` at `=`: klaude answers for bash's word.
  it('answers for the part of the word bash replaces', async () => {
    const r = await runProcess(
      process.execPath,
      [KLAUDE_CLI, '__complete', 'bash', 'co', 'klaude start --runtime=co'],
      {
        env,
        cwd: h.projectDir,
      },
    );
    expect(r.stdout).toBe('words\ncodex\n');
    const eq = await runProcess(process.execPath, [KLAUDE_CLI, '__complete', 'bash', '=', 'klaude start --runtime='], {
      env,
      cwd: h.projectDir,
    });
    expect(eq.stdout.split('\n').slice(0, 3)).toEqual(['words', '=claude', '=codex']);
  });

  it('offers nothing, silently, when the database cannot be read', async () => {
    const broken = path.join(h.root, 'broken-home');
    mkdirSync(broken, { mode: 0o700 });
    writeFileSync(path.join(broken, 'sessions.db'), 'not a database, '.repeat(512));
    const r = await runProcess(process.execPath, [KLAUDE_CLI, '__complete', 'zsh', 'logs', ''], {
      env: { ...env, KLAUDE_HOME: broken },
      cwd: h.projectDir,
    });
    expect(r).toMatchObject({ code: 0, stdout: 'words\n', stderr: '' });
  });
});
