// The [UPDATE] channel: `klaude watch` through the built CLI, and updatesForHook in-process.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { addUpdate, pendingUpdates } from '../../src/db/repos/updates.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { openFastDb } from '../../src/db/fast.js';
import { updatesForHook } from '../../src/logs/updates.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject, spawnKlaude, type LiveKlaude } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
let live: LiveKlaude | undefined;
afterEach(() => {
  live?.kill();
  live = undefined;
  home?.cleanup();
  home = undefined;
});

/** Parent P with children C1 (coder) and C2 (tester), two updates for P; Q with one update of its own. */
function seed() {
  const h = (home = makeTempHome());
  const { db, hash } = seedProject(h);
  const p = createSession(db, { projectId: hash, type: 'tui', status: 'running' });
  const c1 = createSession(db, { projectId: hash, parentId: p.id, type: 'coder', status: 'running' });
  const c2 = createSession(db, { projectId: hash, parentId: p.id, type: 'tester', status: 'running' });
  const q = createSession(db, { projectId: hash, type: 'tui', status: 'idle' });
  const qc = createSession(db, { projectId: hash, parentId: q.id, type: 'explore', status: 'running' });
  addUpdate(db, { sessionId: c1.id, parentSessionId: p.id, text: 'halfway through the refactor' });
  addUpdate(db, { sessionId: c2.id, parentSessionId: p.id, text: 'tests pass\n(all 42)' });
  addUpdate(db, { sessionId: qc.id, parentSessionId: q.id, text: 'found the config loader' });
  return { h, db, hash, p, c1, c2, q, qc };
}

describe('klaude watch', () => {
  it('--once prints the pending updates for $KLAUDE_SESSION_ID and acknowledges them', async () => {
    const s = seed();
    const env = { ...s.h.env, KLAUDE_SESSION_ID: s.p.id };
    const r = await runKlaude(['watch', '--once'], { env, cwd: s.h.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `[UPDATE] ${shortId(s.c1.id)} (coder): halfway through the refactor\n[UPDATE] ${shortId(s.c2.id)} (tester): tests pass (all 42)\n`,
    );
    expect(pendingUpdates(s.db, s.p.id)).toEqual([]);
    expect(pendingUpdates(s.db, s.q.id)).toHaveLength(1); // someone else's
    const again = await runKlaude(['watch', '--once'], { env, cwd: s.h.projectDir });
    expect(again.stdout).toBe('no pending updates\n');
    s.db.close();
  });

  it('named ids, --json, and --filter (non-matching ones stay pending)', async () => {
    const s = seed();
    const r = await runKlaude(['watch', shortId(s.p.id), '--once', '--json', '--filter', 'TESTS?'], {
      env: s.h.env,
      cwd: s.h.projectDir,
    });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      sessionId: s.c2.id,
      parentSessionId: s.p.id,
      agentType: 'tester',
      text: 'tests pass\n(all 42)',
      acknowledged: true,
    });
    expect(pendingUpdates(s.db, s.p.id).map((u) => u.text)).toEqual(['halfway through the refactor']);
    const bad = await runKlaude(['watch', '--once', '--filter', '('], { env: s.h.env, cwd: s.h.projectDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--filter is not a valid regular expression');
    s.db.close();
  });

  it('outside klaude and without ids it shows the whole project without acknowledging', async () => {
    const s = seed();
    const r = await runKlaude(['watch', '--once'], { env: s.h.env, cwd: s.h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(pendingUpdates(s.db, s.p.id)).toHaveLength(2);
    expect(pendingUpdates(s.db, s.q.id)).toHaveLength(1);
    s.db.close();
  });

  it('keeps watching: an update stored later is printed (and acknowledged) until Ctrl-C', async () => {
    const s = seed();
    live = spawnKlaude(['watch'], { env: { ...s.h.env, KLAUDE_SESSION_ID: s.p.id }, cwd: s.h.projectDir });
    await live.waitForOutput(/tests pass \(all 42\)\n/);
    await new Promise((r) => setTimeout(r, 200)); // let it arm its watch; the update below must come through it
    addUpdate(s.db, { sessionId: s.c1.id, parentSessionId: s.p.id, text: 'refactor done' });
    addUpdate(s.db, { sessionId: s.qc.id, parentSessionId: s.q.id, text: 'not for P' });
    await live.waitForOutput(/\(coder\): refactor done\n/);
    // it acknowledged it: the hook will not inject it again
    const { db } = seedProject(s.h);
    expect(pendingUpdates(db, s.p.id)).toEqual([]);
    db.close();
    live.child.kill('SIGINT');
    const { code } = await live.exited();
    expect(code).toBe(130);
    expect(live.stdout()).not.toContain('not for P');
    s.db.close();
  });
});

describe('updatesForHook', () => {
  it('returns the pending child updates as additionalContext text once, acknowledging them', () => {
    const s = seed();
    s.db.close();
    const db = openFastDb(s.h.klaudeHome)!;
    try {
      const text = updatesForHook(db, s.p.id);
      expect(text).toBe(
        [
          'klaude: 2 updates from sub-agents (`klaude logs <id>` shows its log):',
          `[UPDATE] ${shortId(s.c1.id)} (coder): halfway through the refactor`,
          `[UPDATE] ${shortId(s.c2.id)} (tester): tests pass (all 42)`,
        ].join('\n'),
      );
      expect(updatesForHook(db, s.p.id)).toBeNull();
      expect(updatesForHook(db, s.q.id)).toMatch(
        /^klaude: an update from a sub-agent .*\n\[UPDATE\] \w{8} \(explore\): found the config loader$/,
      );
      expect(updatesForHook(db, 'NO-SUCH-SESSION')).toBeNull();
    } finally {
      db.close();
    }
  });
});
