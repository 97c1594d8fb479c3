// An agent runtime owns its CLI, with the real `claude -p` against the stand-in: SIGKILL of the
// runtime ends its claude within seconds (the watchdog) and `klaude message` then resumes the
// conversation with exactly one writer; a grandchild holding the CLI's pipes does not keep the
// runtime (its row, its DB connection) alive past its drain bound.
import Database from 'better-sqlite3';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { runKlaude } from '../support/klaude-bin.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

let releaseHeld!: () => void;
const held = new Promise<void>((r) => (releaseHeld = r));
const fx = useAgentHomes({
  responder: async (r) => {
    if (r.prompt === 'hold on') {
      await held; // streaming for as long as the test wants
      return { text: 'Held reply.' };
    }
    return { text: `Reply to: ${r.prompt}` };
  },
});
let home: AgentHome;
const groups: number[] = [];

afterAll(() => {
  releaseHeld();
});
afterEach(() => {
  // (The runtime's group outlives its row: the helper in the second test lives on in it.)
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Proc {
  id: number;
  pid: number;
  kind: string;
  exited_at: number | null;
  parent_process_id: number | null;
  signal: string | null;
}
function procs(sessionSuffix: string): Proc[] {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare(
        'SELECT p.* FROM runtime_process p JOIN sessions s ON s.id = p.klaude_session_id WHERE s.id LIKE ? ORDER BY p.id',
      )
      .all(`%${sessionSuffix}`) as Proc[];
  } finally {
    db.close();
  }
}
const klaude = (args: string[], timeoutMs = 60_000) =>
  runKlaude(args, { env: home.env, cwd: home.projectDir, timeoutMs });
const waitFor = <T>(what: string, fn: () => T | undefined | false, timeout = 45_000): Promise<T> =>
  vi.waitFor(
    () => {
      const v = fn();
      if (!v) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout, interval: 50 },
  );

describe('the runtime owns its CLI', () => {
  it('SIGKILL of the runtime: its claude -p is gone within 5 s; message then resumes with exactly one writer', async () => {
    // Recovery off: this is the person's own message after a crash (agents.recover: auto is run-recovery.test.ts).
    home = fx.home({ config: "agents:\n  recover: 'off'\n" });
    const start = await klaude(['start', 'general', 'hold on', '-d']);
    expect(start.code, start.stderr).toBe(0);
    const id = /started (\w{8})/.exec(start.stdout)![1]!;
    await fx.mock.waitForRequest((r) => r.prompt === 'hold on', 60_000);
    const [rt, cli] = await waitFor('the runtime and its CLI rows', () => {
      const p = procs(id);
      const r = p.find((x) => x.kind === 'runtime');
      const c = p.find((x) => x.kind === 'cli' && x.parent_process_id === r?.id);
      return r && c ? ([r, c] as const) : undefined;
    });
    groups.push(rt.pid);
    expect(isAlive(cli.pid)).toBe(true);

    const t0 = Date.now();
    process.kill(rt.pid, 'SIGKILL');
    // The message goes at once, while the orphaned claude -p may still be streaming.
    const sent = klaude(['message', id, 'after the crash', '-f']);
    await waitFor('the orphaned claude -p to end', () => !isAlive(cli.pid), 5000);
    expect(Date.now() - t0).toBeLessThan(5000);

    const m = await sent;
    expect(m.code, m.stderr).toBe(0);
    // Recorded by whichever comes first: the runtime's death notice (interrupted, with why) or the
    // message's own look at the records (failed).
    expect(m.stdout).toMatch(new RegExp(`${id} had stopped \\((interrupted|failed)\\): resumed its claude session`));
    expect(m.stdout).toContain('Reply to: after the crash');
    const rows = await waitFor(
      'the second run to finish',
      () => {
        const p = procs(id);
        return p.every((r) => r.exited_at !== null) && p;
      },
      20_000,
    );
    // Two runs, each with one CLI; never two CLIs alive at once.
    expect(rows.filter((r) => r.kind === 'cli')).toHaveLength(2);
    const [first, second] = rows.filter((r) => r.kind === 'cli') as (Proc & { started_at: number })[];
    // The new claude started only after the old one was found gone.
    expect(second!.started_at).toBeGreaterThanOrEqual(first!.exited_at!);
    // Exactly one request for the new message: one writer, billed once.
    expect(fx.mock.requests.filter((r) => r.prompt === 'after the crash' && !r.isSideRequest)).toHaveLength(1);
  });

  it('a grandchild holding the CLI’s stdout/stderr does not keep the runtime alive past its drain bound', async () => {
    home = fx.home();
    // The real claude, started through a wrapper that leaves a helper holding its pipes (as an MCP
    // server or a leftover background job does).
    const wrapper = join(home.root, 'claude-with-helper');
    writeFileSync(wrapper, `#!/bin/sh\nsleep 300 &\nexec ${CLAUDE_BIN} "$@"\n`);
    chmodSync(wrapper, 0o755);
    home.configure({ binary: wrapper });
    const r = await klaude(['start', 'general', 'quick one']);
    const id = /started (\w{8})/.exec(r.stdout)![1]!;
    const rt = procs(id).find((p) => p.kind === 'runtime')!;
    groups.push(rt.pid); // the helper (sleep 300) lives in the runtime's group
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Reply to: quick one');
    // claude exits once stdin is closed; the runtime then gives the pipes 2 s and exits.
    const cliRow = procs(id).find((p) => p.kind === 'cli')!;
    await waitFor('claude to exit', () => !isAlive(cliRow.pid), 30_000);
    const exitedAt = Date.now();
    await waitFor('the runtime to exit', () => !isAlive(rt.pid), 10_000);
    expect(Date.now() - exitedAt).toBeLessThan(8000);
    expect(procs(id).find((p) => p.kind === 'runtime')!.exited_at).not.toBeNull();
  });
});
