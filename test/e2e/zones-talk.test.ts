// A zone's agent's conversation opened by the person (docs/zones.md "Checkout and talk"), against a
// real sshd in a network namespace of the test's own (test/support/zone-host.ts): `klaude talk`
// runs `ssh -t` into its claude over there, in its worktree; `klaude checkout` brings it here (its
// branch fetched into a worktree of its own, its transcript copied) and resumes it in the
// foreground, refusing while it runs; `--remote` opens it over there in the foreground instead.
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { READY, readDb, startKlaude, submit } from './supervisor-helpers.js';
import { stopHosts } from './talk-helpers.js';
import {
  cloneToZone,
  makeZoneNetwork,
  planZone,
  startZoneHost,
  zoneHostProblem,
  type ZoneHost,
} from '../support/zone-host.js';

const plan = planZone();
const problem = zoneHostProblem();
let removeNetwork: (() => void) | undefined;

beforeAll(() => {
  if (problem) throw new Error(problem);
  removeNetwork = makeZoneNetwork(plan);
});
afterAll(() => removeNetwork?.());

const homes = useAgentHomes({ host: plan.apiHost });
let zone: ZoneHost;

beforeAll(async () => {
  zone = await startZoneHost(plan, homes.mock.url);
  // The zone's agents may run Bash without asking (their work here is a file they write).
  appendFileSync(join(zone.zoneHome, 'config.yaml'), 'agents:\n  allowedTools: [Bash]\n');
  // The person has used claude in the clone over there (trusted it): its agents' worktrees are trusted too.
  const claudeJson = join(zone.userHome, '.claude.json');
  const j = JSON.parse(readFileSync(claudeJson, 'utf8'));
  j.projects = { ...j.projects, [zone.clone]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } };
  writeFileSync(claudeJson, JSON.stringify(j, null, 2));
  homes.mock.setResponder((r) => {
    if (r.isToolResult) return { text: `Tool output: ${r.toolResults.map((t) => t.content.trim()).join(' ')}` };
    // (after a paragraph klaude may put first: a fork's note of where it works)
    const run = /^(?:.*?\n\n)?run: (.+)$/s.exec(r.prompt);
    if (run) return { bash: { command: run[1]!.trim(), description: 'asked' } };
    if (r.prompt.startsWith('slow:')) return { text: `${'word '.repeat(2400)}end`, chunks: 1200, delayMs: 100 };
    return { text: `Reply to: ${r.prompt} — done.` };
  });
}, 60_000);
afterAll(() => zone?.close());

async function startDetached(h: AgentHome, prompt: string): Promise<string> {
  const r = await h.k(['start', 'general', prompt, '--zone', 'build', '--json'], { timeoutMs: 90_000 });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).sessions[0].id as string;
}

interface Row {
  status: string;
  metadata: string;
  worktree_path: string | null;
  worktree_branch: string | null;
  log_path: string | null;
}

const rowHere = (h: AgentHome, id: string): Row =>
  readDb(h, (db) => db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row);

async function until(what: string, ok: () => boolean, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `klaude <args>` as the zone's user in its clone; its output, or the error's (exit ≠ 0). */
function atZone(args: string[]): string {
  try {
    return zone.asUser(
      'env',
      [`HOME=${zone.userHome}`, `KLAUDE_HOME=${zone.zoneHome}`, 'node', KLAUDE_CLI, ...args],
      zone.clone,
    );
  } catch (e) {
    return (e as Error).message;
  }
}

/** The agent's log over there. */
function zoneLog(id: string): string {
  return zone.asUser('sh', ['-c', `cat ${zone.zoneHome}/projects/*/logs/${id}.ndjson`]);
}

/** The zone's row of the agent (its own DB, read as the zone's klaude lists it). */
function rowThere(id: string): any {
  const j = JSON.parse(atZone(['sessions', '--json', '--all']));
  const flat: any[] = [];
  const walk = (n: any): void => {
    flat.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of j.sessions ?? j) walk(n);
  return flat.find((s) => s.id === id);
}

describe('klaude talk on a zone’s agent', () => {
  it('runs ssh -t into its claude over there: the PTY shows the resumed conversation, and talks on there', async () => {
    const h = homes.home({ config: zone.zoneYaml(), supervisor: true });
    cloneToZone(zone, h.projectDir);
    const id = await startDetached(h, 'remember PAPAYA');
    await until('the first turn to end', () => rowHere(h, id).status === 'done');

    const term = h.own(
      spawnPty(process.execPath, [KLAUDE_CLI, 'talk', id.slice(-8)], {
        cwd: h.projectDir,
        env: h.env,
        cols: 110,
        rows: 34,
      }),
    );
    try {
      await term.waitForText(READY, { timeoutMs: 60_000 });
      await term.waitForText('Reply to: remember PAPAYA — done.');
      // Open over there: the zone's row records its claude, and nothing else writes the conversation.
      expect(rowThere(id).status).toBe('idle');
      const busy = await h.k(['message', id, 'not now']);
      expect(busy.code).not.toBe(0);
      expect(busy.stderr).toContain('E_SESSION_BUSY');
      expect(busy.stderr).toContain('PTY session');

      await submit(term, 'run: pwd');
      const there = rowThere(id).worktreePath as string;
      expect(there).toContain(zone.userHome);
      await term.waitForText(`Tool output: ${there}`, { timeoutMs: 60_000 });

      await submit(term, '/exit');
      await term.waitForText(/exited \(code 0\); `klaude talk \w+` resumes it/, { timeoutMs: 30_000 });
      await until('the zone to record the end', () => rowThere(id).status === 'done', 30_000);
    } finally {
      await stopHosts(h, id);
    }
  }, 240_000);
});

describe('klaude checkout of a zone’s agent', () => {
  let term: PtySession | undefined;
  afterAll(() => term?.dispose());

  it('is refused while it runs; brings it here (its branch in a worktree, its conversation) and resumes it', async () => {
    const h = homes.home({ config: zone.zoneYaml(), supervisor: true });
    cloneToZone(zone, h.projectDir);
    const id = await startDetached(h, `run: python3 -c "open('zone.txt','w').write('made in the zone\\n')"`);
    const slow = await startDetached(h, 'slow: keep the zone busy');
    await until('the first agent to finish', () => rowHere(h, id).status === 'done');
    await until('the slow one to run', () => rowHere(h, slow).status === 'running');

    term = h.own(startKlaude(h));
    await term.waitForText(READY, { timeoutMs: 45_000 });

    const refused = await h.k(['checkout', slow.slice(-8)], { timeoutMs: 120_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/in zone build: \w+ is running on .* \[E_SESSION_BUSY\]/);
    expect(refused.stderr).toContain('--force');
    expect(JSON.parse(rowHere(h, slow).metadata).zone).toEqual({ name: 'build' });
    // So is a talk session: refused before any PTY is made, in the zone's words.
    const talk = spawnPty(process.execPath, [KLAUDE_CLI, 'talk', slow.slice(-8)], {
      cwd: h.projectDir,
      env: h.env,
      cols: 160,
      rows: 10,
    });
    await talk.exited;
    expect(talk.text()).toMatch(/in zone build: \w+ is running on .*\[E_SESSION_BUSY\]/);
    await talk.dispose();

    const r = await h.k(['checkout', id.slice(-8)], { timeoutMs: 240_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/checked out \w+ .*: brought here from zone build: it goes on in /);
    await term.waitForText('brought here from zone build', { timeoutMs: 30_000 });
    // The conversation it had over there, resumed: its first prompt is on the screen again.
    await term.waitForText("open('zone.txt'", { timeoutMs: 60_000 });

    const here = rowHere(h, id);
    const meta = JSON.parse(here.metadata);
    expect(meta.zone).toBeUndefined();
    expect(meta.fromZone.name).toBe('build');
    expect(here.worktree_path).toBeTruthy();
    expect(readFileSync(join(here.worktree_path!, 'zone.txt'), 'utf8')).toBe('made in the zone\n');
    expect(existsSync(join(h.projectDir, 'zone.txt'))).toBe(false);

    // Over there it is not resumed again: the conversation lives here now.
    const there = atZone(['message', id, 'from the zone keyboard']);
    expect(there).toContain('E_ZONE_MOVED');

    // It goes on here, in its worktree, on the conversation it had there.
    await submit(term, 'run: cat zone.txt');
    await term.waitForText('Tool output: made in the zone', { timeoutMs: 60_000 });
    await submit(term, 'run: pwd');
    await term.waitForText(`Tool output: ${here.worktree_path}`, { timeoutMs: 60_000 });

    // --force takes a running one: its turn ends over there as an interrupt ends it (the words so far
    // are kept), it is not recovered there, and it comes here with them.
    expect(rowThere(slow).status).toBe('running');
    const forced = await h.k(['checkout', slow.slice(-8), '--force'], { timeoutMs: 240_000 });
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toContain('brought here from zone build');
    await term.waitForText('word word word', { timeoutMs: 60_000 });
    expect(rowThere(slow).status).toBe('interrupted');
    expect(zoneLog(slow)).not.toContain('"type":"recovered"');
  }, 300_000);
});

describe('klaude checkout --remote', () => {
  it('opens the conversation over there in the foreground: ssh -t into its claude in its worktree', async () => {
    const h = homes.home({ config: zone.zoneYaml(), supervisor: true });
    cloneToZone(zone, h.projectDir);
    const id = await startDetached(h, 'remember MANGO');
    await until('the first turn to end', () => rowHere(h, id).status === 'done');
    const term = h.own(startKlaude(h));
    await term.waitForText(READY, { timeoutMs: 45_000 });

    const r = await h.k(['checkout', id.slice(-8), '--remote'], { timeoutMs: 120_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/checked out \w+ .*: over ssh in zone build/);
    await term.waitForText('Reply to: remember MANGO — done.', { timeoutMs: 60_000 });
    await submit(term, 'run: pwd');
    const there = rowThere(id).worktreePath as string;
    await term.waitForText(`Tool output: ${there}`, { timeoutMs: 60_000 });
    // Still the zone's: its row here is a mirror, open in this foreground.
    expect(JSON.parse(rowHere(h, id).metadata).zone).toEqual({ name: 'build' });
    const busy = await h.k(['message', id, 'not now']);
    expect(busy.stderr).toContain('E_SESSION_BUSY');
  }, 240_000);
});

describe('fork, review and budget of a zone’s agent', () => {
  it('forks it over there with its work, reviews its diff taken there, and carries its budget', async () => {
    const h = homes.home({ config: zone.zoneYaml(), supervisor: true });
    cloneToZone(zone, h.projectDir);
    const id = await startDetached(h, `run: python3 -c "open('zone.txt','w').write('made in the zone\\n')"`);
    await until('the agent to finish', () => rowHere(h, id).status === 'done');

    // The fork continues the conversation over there, in a worktree made from its origin's (its work carried).
    const f = await h.k(['fork', id, 'run: cat zone.txt'], { timeoutMs: 120_000 });
    expect(f.stderr).toBe('');
    expect(f.stdout).toMatch(/forked \w+ \(general, claude\) from \w+ in zone build/);
    expect(f.stdout).toContain('Tool output: made in the zone');
    const forkId = /forked (\w+)/.exec(f.stdout)![1]!;
    const fork = readDb(h, (db) => db.prepare('SELECT * FROM sessions WHERE id LIKE ?').get(`%${forkId}`) as any);
    expect(fork.forked_from).toBe(id);
    expect(JSON.parse(fork.metadata).zone).toEqual({ name: 'build' });

    // The reviewer runs here, on the diff taken over there.
    const rv = await h.k(['review', id, '--by', 'claude', '--diff', '-d'], { timeoutMs: 60_000 });
    expect(rv.stderr).toBe('');
    await until('the reviewer to ask', () =>
      homes.mock.mainRequests().some((q) => q.prompt.includes('+made in the zone') && q.prompt.includes('zone build')),
    );

    const b = await h.k(['budget', id, '7']);
    expect(b.stderr).toBe('');
    expect(JSON.parse(atZone(['budget', id, '--json'])).budgetUsd).toBe(7);
  }, 240_000);
});
