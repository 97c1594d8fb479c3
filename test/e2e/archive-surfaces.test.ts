// One archive rule on every surface: `klaude archive`, the dashboard's `d` (the built `klaude ui`
// in a PTY) and the web page's action (`klaude web`, its HTTP API) archive the same seeded
// sessions with the same outcome. A finished worktree agent whose worktree holds nothing (empty
// or merged) loses its worktree and branch; one with uncommitted work keeps them, named; one whose
// worktree another session still works in (a fork made before forks had worktrees of their own)
// keeps it, naming that session; a session whose conversation someone is taking over is refused.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { createSession, getSession, updateSession, type SessionRow } from '../../src/db/repos/sessions.js';
import { createAgentWorktree } from '../../src/git/worktree.js';
import { claimConversation } from '../../src/ownership/conversation-claim.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject, type Seeded } from '../support/seed-sessions.js';
import { http } from '../support/web-client.js';
import { DASHBOARD, startUi } from '../ui/helpers/ui-e2e.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

// No stand-in and no config.yaml: no agent runs here, the sessions are seeded.
const fx = useAgentHomes({ standIn: false });

interface Scene extends Seeded {
  home: AgentHome;
  /** Shown newest first in the dashboard: tidy, keeper, origin, taken, then forked. */
  tidy: SessionRow;
  keeper: SessionRow;
  origin: SessionRow;
  taken: SessionRow;
  forked: SessionRow;
}

/** Each row is created in a later millisecond than the last, so the tree's order is known. */
function laterMs(): void {
  const t = Date.now();
  while (Date.now() === t);
}

function scene(): Scene {
  const home = fx.home({ prefix: 'klaude-archive-all-', config: false, env: { CI: undefined } });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
      cwd: home.projectDir,
      env: home.env,
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const head = git('rev-parse', 'HEAD').trim();
  const seeded = seedProject(home);
  const { db, hash } = seeded;
  const make = (type: string): SessionRow => {
    laterMs();
    return createSession(db, { projectId: hash, type, runtime: 'claude', status: 'done', prompt: `${type} job` });
  };
  const withWorktree = (s: SessionRow): SessionRow => {
    const wt = createAgentWorktree({
      home: home.klaudeHome,
      projectHash: hash,
      sessionId: s.id,
      type: s.type,
      top: home.projectDir,
      head,
      cwd: home.projectDir,
    });
    return updateSession(db, s.id, {
      worktreePath: wt.path,
      worktreeBranch: wt.branch,
      worktreeBase: wt.base,
      metadata: { cwd: wt.cwd, projectRoot: home.projectDir },
    })!;
  };
  const forked = make('forked');
  const taken = make('taken');
  const origin = withWorktree(make('origin'));
  const keeper = withWorktree(make('keeper'));
  const tidy = withWorktree(make('tidy'));
  writeFileSync(join(keeper.worktreePath!, 'work.txt'), 'not committed\n');
  // A fork that runs in its origin's worktree (as forks did before they got worktrees of their own).
  updateSession(db, forked.id, {
    forkedFrom: origin.id,
    metadata: { cwd: origin.worktreePath, projectRoot: home.projectDir },
  });
  // Someone is taking `taken`'s conversation over (a checkout, a resume): this test process holds the claim.
  claimConversation(db, taken.id, 'a checkout in the test');
  return { ...seeded, home, tidy, keeper, origin, taken, forked };
}

/** What one surface said and did for one session. */
interface Outcome {
  archived: boolean;
  worktree: boolean;
  branch: boolean;
  said: string;
}

function outcome(sc: Scene, s: SessionRow, said: string): Outcome {
  const branches = execFileSync('git', ['branch', '--list', s.worktreeBranch ?? 'none'], {
    cwd: sc.home.projectDir,
    encoding: 'utf8',
  });
  return {
    archived: getSession(sc.db, s.id)!.archivedAt !== null,
    worktree: s.worktreePath !== null && existsSync(s.worktreePath),
    branch: branches.trim() !== '',
    said,
  };
}

type Surface = (sc: Scene, s: SessionRow) => Promise<string>;

/** The same four sessions through one surface, in the dashboard's row order. */
async function archiveAll(sc: Scene, archive: Surface): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const s of [sc.tidy, sc.keeper, sc.origin, sc.taken]) out[s.type] = outcome(sc, s, await archive(sc, s));
  return out;
}

function expectTheRule(sc: Scene, out: Record<string, Outcome>): void {
  const short = (s: SessionRow) => shortId(s.id);
  expect(out.tidy).toMatchObject({ archived: true, worktree: false, branch: false });
  expect(out.keeper).toMatchObject({ archived: true, worktree: true, branch: true });
  expect(out.keeper!.said).toContain(`kept ${short(sc.keeper)}'s worktree: 1 uncommitted file`);
  expect(out.origin).toMatchObject({ archived: true, worktree: true, branch: true });
  expect(out.origin!.said).toContain(`kept ${short(sc.origin)}'s worktree: forked ${short(sc.forked)} works in it`);
  expect(out.taken).toMatchObject({ archived: false });
  expect(out.taken!.said).toContain(`${short(sc.taken)} (taken) is being taken by a checkout in the test`);
  expect(existsSync(join(sc.origin.worktreePath!, 'base.txt'))).toBe(true);
}

describe('archive: one rule on every surface', () => {
  it('klaude archive', async () => {
    const sc = scene();
    const out = await archiveAll(sc, async (_sc, s) => {
      const r = await runKlaude(['archive', shortId(s.id)], { env: sc.home.env, cwd: sc.home.projectDir });
      expect(r.code, r.stderr).toBe(s.id === sc.taken.id ? 1 : 0);
      return r.stdout + r.stderr;
    });
    expectTheRule(sc, out);
    sc.db.close();
  });

  it("the dashboard's d", async () => {
    const sc = scene();
    const term = sc.home.own(startUi(sc, { cols: 250, rows: 30 }));
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    const out = await archiveAll(sc, async (_sc, s) => {
      // The selection stays on the first row: each archived row leaves it to the next one.
      await term.waitForText(new RegExp(`▶?.*${s.type} +${shortId(s.id)}|${shortId(s.id)}.*${s.type}`));
      term.write('d');
      await term.waitForText(`Archive ${s.type} ${shortId(s.id)}`);
      term.write('y');
      const done = s.id === sc.taken.id ? 'is being taken by' : `archived ${s.type} ${shortId(s.id)}`;
      await term.waitForText(done, { timeoutMs: 15_000 });
      return term.text().replace(/\s*\n\s*/g, ' ');
    });
    expectTheRule(sc, out);
    sc.db.close();
  });

  it("the web page's archive action", async () => {
    const sc = scene();
    const w = await sc.home.web();
    const out = await archiveAll(sc, async (_sc, s) => {
      const r = await http(w.port, 'POST', `/api/sessions/${s.id}/archive`, {
        headers: { authorization: `Bearer ${w.token}`, origin: w.origin },
        body: { restore: false },
      });
      expect(r.status, r.body).toBe(s.id === sc.taken.id ? 409 : 200);
      return r.body;
    });
    expectTheRule(sc, out);
    sc.db.close();
  });
});
