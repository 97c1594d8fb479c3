// The checkout state machine's edges that the real claude can't hit on cue: a shutdown while
// a relaunch is being spawned, and a foreground that exits while a checkout waits for its
// target. Real Switcher, real DB, real processes (a shell stand-in for claude).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { loadConfig } from '../../src/config/config.js';
import { openDb, type Db } from '../../src/db/client.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { currentProcesses, recordProcess } from '../../src/db/repos/processes.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { getClaim } from '../../src/db/repos/claims.js';
import type { AgentServices } from '../../src/agent-ops/context.js';
import { deliverMessage } from '../../src/agent-ops/message.js';
import { nullLogger } from '../../src/lib/logger.js';
import { parseClaudePassthrough } from '../../src/supervisor/foreground-args.js';
import type { SupervisorContext } from '../../src/supervisor/context.js';
import type { ForegroundExit } from '../../src/supervisor/foreground.js';
import { Switcher } from '../../src/supervisor/switcher.js';
import { launchSpecFor } from '../../src/supervisor/launch-records.js';
import { planTalk } from '../../src/pty/talk-session.js';
import { projectHash, projectRoot } from '../../src/config/paths.js';

let root: string;
let db: Db;
let ctx: SupervisorContext;
const spawned: number[] = [];
const switchers: Switcher[] = [];

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-switcher-')));
  const home = path.join(root, 'klaude');
  // Dies on SIGTERM (exit 143 as claude, via the signal here); no children left behind.
  const stub = path.join(root, 'claude-stub');
  writeFileSync(stub, '#!/bin/sh\nexec sleep 600\n');
  chmodSync(stub, 0o755);
  db = openDb(home);
  ensureProject(db, { hash: 'p'.repeat(24), rootPath: root });
  const instance = createInstance(db, {
    projectId: 'p'.repeat(24),
    pid: process.pid,
    socketPath: path.join(root, 'x.sock'),
    cwd: root,
    mode: 'cli',
  });
  ctx = {
    home,
    config: loadConfig(home).config,
    cwd: root,
    projectRoot: root,
    projectHash: 'p'.repeat(24),
    db,
    log: nullLogger,
    instanceId: instance.id,
    socketPath: path.join(root, 'x.sock'),
    shimDir: path.join(root, 'bin'),
    inv: { node: process.execPath, cli: path.join(root, 'cli.js') },
    claudeBin: stub,
    passthrough: parseClaudePassthrough([]),
    env: { PATH: process.env.PATH, HOME: root },
  };
});
afterEach(async () => {
  for (const sw of switchers.splice(0)) {
    const done = once(sw, 'finished');
    await sw.shutdown(0); // a no-op when the test already shut it down
    if (sw.fg.current) await done;
  }
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  db.close();
  rmSync(root, { recursive: true, force: true });
});

function session(claudeId?: string): string {
  const s = createSession(db, { projectId: 'p'.repeat(24), type: 'tui', status: 'idle' });
  if (claudeId) linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: claudeId, source: 'startup' });
  return s.id;
}

async function started(): Promise<{ switcher: Switcher; a: string }> {
  const switcher = new Switcher(ctx);
  switchers.push(switcher);
  switcher.on('foreground', (_spec, pid) => spawned.push(pid));
  const a = session();
  await switcher.start({ sessionId: a, claudeSessionId: '00000000-0000-4000-8000-00000000000a', mode: 'new' });
  return { switcher, a };
}

describe('Switcher', () => {
  it('a shutdown while the checked-out claude is being spawned stops that claude, then finishes once', async () => {
    const { switcher } = await started();
    const b = session('00000000-0000-4000-8000-00000000000b');
    const finished: number[] = [];
    switcher.on('finished', (code) => finished.push(code));
    const exits: ForegroundExit[] = [];
    // Runs right after the switcher's own exit handler, which has just begun launching B.
    switcher.fg.on('exit', (ev) => {
      exits.push(ev);
      if (exits.length === 1) void switcher.shutdown(143);
    });

    const checkout = switcher.checkout({ target: b }).catch((e: unknown) => e);
    await once(switcher, 'finished');
    expect(finished).toEqual([143]);
    expect(exits.map((e) => e.spec.sessionId)[1]).toBe(b); // B was spawned and stopped again
    expect(spawned).toHaveLength(2);
    expect(spawned.every((pid) => !isAlive(pid))).toBe(true);
    await checkout;
    expect(switcher.fg.current).toBeNull();
  });

  it('refuses to stop a running agent without --force; with it, stops its runtime before resuming', async () => {
    const { switcher } = await started();
    const b = session('00000000-0000-4000-8000-00000000000b');
    // A runtime runs detached as its own process-group leader (ARCHITECTURE.md §1).
    const runtime = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    spawned.push(runtime.pid!);
    const exited = once(runtime, 'exit');
    const row = recordProcess(db, { klaudeSessionId: b, pid: runtime.pid!, kind: 'runtime' });

    // A running agent is not stopped silently: refused with a hint, the run untouched.
    const refused = await switcher.checkout({ target: b }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'E_SESSION_BUSY', hint: expect.stringMatching(/klaude wait \S+.*--force/) });
    expect(runtime.exitCode).toBeNull();
    expect(switcher.isSwitching).toBe(false);

    const res = await switcher.checkout({ target: b, force: true });
    const [, signal] = await exited;
    expect(signal).toBe('SIGTERM');
    expect(currentProcesses(db, b, 'runtime')).toEqual([]);
    expect(db.sqlite.prepare('SELECT signal FROM runtime_process WHERE id = ?').get(row.id)).toEqual({
      signal: 'SIGTERM',
    });
    expect(currentProcesses(db, b, 'claude')).toMatchObject([{ pid: res.pid }]);
  });

  it('a message during a checkout’s grace period gets E_SESSION_BUSY naming the checkout, and starts nothing', async () => {
    // A claude that takes the whole grace to die: the checkout waits it out holding the claim.
    const slow = path.join(root, 'claude-slow');
    writeFileSync(slow, "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 0.2; done\n");
    chmodSync(slow, 0o755);
    ctx.claudeBin = slow;
    ctx.config = { ...ctx.config, 'switch.graceSeconds': 3 };
    const { switcher } = await started();
    const b = session('00000000-0000-4000-8000-00000000000b');
    updateSession(db, b, { type: 'general', status: 'done' }); // a stopped agent: message would resume it
    const checkout = switcher.checkout({ target: b });
    const t0 = Date.now();
    while (!getClaim(db, b)) {
      if (Date.now() - t0 > 5000) throw new Error('the checkout never took its claim');
      await new Promise((r) => setTimeout(r, 10));
    }
    const svc: AgentServices = {
      home: ctx.home,
      config: ctx.config,
      db,
      projectRoot: root,
      projectHash: 'p'.repeat(24),
      env: ctx.env,
      inv: ctx.inv,
      instanceId: null,
    };
    const err = await deliverMessage(svc, b, 'hello').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'E_SESSION_BUSY',
      message: expect.stringMatching(/is taken by a checkout in klaude \S+ \(pid \d+\)$/),
    });
    expect(Date.now() - t0).toBeLessThan(3000); // answered during the grace, not after it
    expect(currentProcesses(db, b, 'runtime')).toEqual([]);
    expect(getSession(db, b)!.status).toBe('done');

    const res = await checkout;
    expect(currentProcesses(db, b, 'claude')).toMatchObject([{ pid: res.pid }]);
    expect(getClaim(db, b)).toBeUndefined(); // released once the foreground row says who writes
  });

  it('a failure recording the launch (disk full, DB busy) never abandons the live claude', async () => {
    db.sqlite.exec(
      "CREATE TRIGGER no_claude_rows BEFORE INSERT ON runtime_process WHEN NEW.kind = 'claude' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
    );
    const { switcher } = await started(); // resolves: the failure is logged, not thrown
    const cur = switcher.fg.current!;
    expect(isAlive(cur.pid)).toBe(true);
    expect(currentProcesses(db, cur.spec.sessionId, 'claude')).toEqual([]);
    const finished = once(switcher, 'finished');
    await switcher.shutdown(143); // still ours to stop
    await finished;
    expect(isAlive(cur.pid)).toBe(false);
  });

  it('a checkout whose foreground exits while it waits for the target fails instead of hanging, and frees the switcher', async () => {
    const { switcher } = await started();
    const c = session(); // no Claude id yet
    const first = switcher.fg.current!;
    const checkout = switcher.checkout({ target: c, timeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(switcher.isSwitching).toBe(true);

    process.kill(first.pid, 'SIGTERM'); // the person quits claude meanwhile
    await first.exited;
    linkClaudeSession(db, {
      klaudeSessionId: c,
      claudeSessionId: '00000000-0000-4000-8000-00000000000c',
      source: 'headless',
    });
    expect(await checkout).toMatchObject({
      code: 'E_SWITCH_FAILED',
      message: 'the foreground claude exited during the checkout',
    });
    expect(switcher.isSwitching).toBe(false);
  });

  it("checks a non-Claude agent out with its runtime's own interactive resume, in the agent's directory", async () => {
    const { switcher } = await started();
    const agentDir = path.join(root, 'sub');
    mkdirSync(agentDir);
    const record = path.join(root, 'codex-args.txt');
    const codexStub = path.join(root, 'codex-stub');
    writeFileSync(
      codexStub,
      `#!/bin/sh\n[ "$1" = --version ] && { echo 'codex-cli 0.169.0'; exit 0; }\necho "$PWD $*" > '${record}'\nexec sleep 600\n`,
    );
    chmodSync(codexStub, 0o755);
    ctx.config['codex.binary'] = codexStub;
    const thread = '01a202c8-f774-7931-90aa-cdd5395af93a';
    const agent = createSession(db, {
      projectId: 'p'.repeat(24),
      type: 'general',
      runtime: 'codex',
      status: 'done',
      nativeSessionId: thread,
      metadata: { cwd: agentDir },
    });

    const res = await switcher.checkout({ target: agent.id });
    expect(res.claudeSessionId).toBe(thread);
    await waitFor(() => existsSync(record) && readFileSync(record, 'utf8').includes(thread));
    expect(readFileSync(record, 'utf8').trim()).toBe(`${agentDir} resume ${thread}`);
    // No Claude link is invented for a codex thread.
    expect(
      db.sqlite.prepare('SELECT count(*) AS n FROM claude_session_links WHERE claude_session_id = ?').get(thread),
    ).toEqual({ n: 0 });
    expect(currentProcesses(db, agent.id, 'claude')).toMatchObject([{ pid: res.pid }]);
  });

  it('refuses to open an agent whose git worktree was pruned (checkout, dashboard Enter, talk) with E_NO_WORKTREE and a hint', async () => {
    const { switcher, a } = await started();
    const gone = path.join(root, 'worktrees', 'agent'); // recorded, never created: as after `klaude worktree prune`
    const hash = projectHash(projectRoot(root));
    ensureProject(db, { hash, rootPath: path.join(root, 'as-talk-sees-it') }); // root itself is taken by 'ppp…'
    const agent = createSession(db, {
      projectId: 'p'.repeat(24),
      type: 'coder',
      status: 'done',
      nativeSessionId: '00000000-0000-4000-8000-00000000000d',
      metadata: { cwd: gone },
    });
    updateSession(db, agent.id, { worktreePath: gone, worktreeBranch: 'klaude/coder-x' });
    const refusal = {
      code: 'E_NO_WORKTREE',
      message: `the agent's worktree ${gone} was removed (klaude worktree prune): it has nowhere to work`,
      hint: expect.stringContaining(`klaude logs ${shortId(agent.id)}`),
    };
    // `klaude checkout` (and the dashboard's Enter: the same resolve, then launchSpecFor).
    expect(await switcher.checkout({ target: agent.id }).catch((e: unknown) => e)).toMatchObject(refusal);
    expect(switcher.fg.current?.spec.sessionId).toBe(a); // claude was not restarted anywhere
    expect(spawned).toHaveLength(1);
    expect(switcher.isSwitching).toBe(false);
    expect(getClaim(db, agent.id)).toBeUndefined();
    expect(() => launchSpecFor(ctx, getSession(db, agent.id)!, '00000000-0000-4000-8000-00000000000d')).toThrow(
      expect.objectContaining(refusal),
    );
    // `klaude talk`: refused before any PTY host starts.
    const talker = createSession(db, { projectId: hash, type: 'coder', status: 'done', metadata: { cwd: gone } });
    updateSession(db, talker.id, { worktreePath: gone });
    expect(() => planTalk(ctx.home, talker.id, root)).toThrow(expect.objectContaining({ code: 'E_NO_WORKTREE' }));
  });

  it('a checkout whose target cannot start names the target in its message, not the session it left', async () => {
    const { switcher, a } = await started();
    const b = session('00000000-0000-4000-8000-00000000000b');
    ctx.claudeBin = path.join(root, 'no-such-claude'); // the relaunch of B fails to spawn
    const said: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const finished = once(switcher, 'finished'); // going back to A fails the same way: nothing left to run
      expect(await switcher.checkout({ target: b }).catch((e: unknown) => e)).toMatchObject({
        code: 'E_CLAUDE_NOT_FOUND',
      });
      await finished;
    } finally {
      process.stderr.write = write;
    }
    const text = said.join('');
    // Human output names sessions by their short (displayed) id.
    expect(text).toMatch(
      new RegExp(
        `klaude: could not switch to ${shortId(b)} \\(claude --[a-z-]+ 00000000-0000-4000-8000-00000000000b\\): could not start claude for ${shortId(b)}: `,
      ),
    );
    expect(text).toContain(`klaude: returning to ${shortId(a)}`);
    expect(text).not.toContain(`could not switch to ${shortId(a)}`);
  });

  it("gives the person's --agent / --system-prompt to the root only, not to a checked-out agent", async () => {
    const record = path.join(root, 'claude-args.txt');
    const recorder = path.join(root, 'claude-recorder');
    writeFileSync(recorder, `#!/bin/sh\necho "$KLAUDE_SESSION_ID $*" >> '${record}'\nexec sleep 600\n`);
    chmodSync(recorder, 0o755);
    ctx.claudeBin = recorder;
    ctx.passthrough = parseClaudePassthrough([
      '--agent',
      'planner',
      '--append-system-prompt',
      'be the root',
      '--model',
      'opus',
    ]);
    const recorded = (n: number): Promise<void> =>
      waitFor(() => existsSync(record) && readFileSync(record, 'utf8').trim().split('\n').length >= n);
    const { switcher, a } = await started();
    const child = createSession(db, { projectId: 'p'.repeat(24), type: 'general', parentId: a, status: 'done' });
    linkClaudeSession(db, {
      klaudeSessionId: child.id,
      claudeSessionId: '00000000-0000-4000-8000-0000000000c1',
      source: 'headless',
    });
    await recorded(1); // each stand-in records its argv before the next checkout stops it
    await switcher.checkout({ target: child.id });
    await recorded(2);
    await switcher.checkout({ target: a }); // and back to the root
    await recorded(3);
    const [rootArgs, childArgs, backArgs] = readFileSync(record, 'utf8').trim().split('\n');
    expect(rootArgs).toMatch(new RegExp(`^${a} .*--agent planner --append-system-prompt be the root --model opus`));
    expect(childArgs).toMatch(new RegExp(`^${child.id} `));
    expect(childArgs).toContain('--model opus');
    expect(childArgs).not.toContain('--agent');
    expect(childArgs).not.toContain('be the root');
    expect(backArgs).toMatch(new RegExp(`^${a} .*--agent planner --append-system-prompt be the root`));
  });
});

async function waitFor(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the stub to record its arguments');
    await new Promise((r) => setTimeout(r, 20));
  }
}
