// Agents in a zone (docs/zones.md), against a real sshd in a network namespace of the test's own
// (test/support/zone-host.ts): the zone is another Unix user on its own address, reached with a key
// made for the test; its klaude is this checkout's dist/, its claude the pinned one against the
// stand-in. Start, stream, approve, message, interrupt, diff and merge go through the zone's link.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { until } from '../support/until.js';
import { runInTerminal } from '../support/terminal-run.js';
import { spawnPty } from '../support/pty-driver.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
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
}, 60_000);
afterAll(() => zone?.close());

/** The stand-in's script: `run: <cmd>` asks for Bash, `slow: <text>` streams for a long while, else a short reply. */
function responder(): void {
  homes.mock.setResponder((r) => {
    if (r.isToolResult) return { text: `Tool said: ${r.toolResults.map((t) => t.content.trim()).join(' ')}` };
    const run = /^run: (.+)$/s.exec(r.prompt);
    if (run) return { text: 'Running it.', bash: { command: run[1]!, description: 'asked' } };
    if (r.prompt.startsWith('slow:')) return { text: `${'word '.repeat(400)}end`, chunks: 200, delayMs: 100 };
    return { text: `Reply to: ${r.prompt} — done.`, chunks: 6, delayMs: 40 };
  });
}

async function sessionsJson(h: AgentHome): Promise<any[]> {
  const r = await h.k(['sessions', '--json']);
  const j = JSON.parse(r.stdout);
  const flat: any[] = [];
  const walk = (n: any): void => {
    flat.push(n);
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of j.sessions ?? j) walk(n);
  return flat;
}

async function rowOf(h: AgentHome, id: string): Promise<any> {
  return (await sessionsJson(h)).find((s) => s.id === id || s.id.endsWith(id));
}

async function waitForRow(
  h: AgentHome,
  id: string,
  what: string,
  ok: (row: any) => boolean,
  ms = 60_000,
): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const row = await rowOf(h, id);
    if (row && ok(row)) return row;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(row)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function zoneLogOf(sid: string): string {
  const logs = join(zone.zoneHome, 'projects');
  const found = zone.asUser('sh', ['-c', `ls ${logs}/*/logs/${sid}.ndjson`]).trim();
  return readFileSync(found, 'utf8');
}

/** `klaude <args>` as the zone's user at a terminal of its own over there (a person at the zone's keyboard). */
async function zoneTerminal(args: string[]): Promise<string> {
  const s = spawnPty(
    'runuser',
    [
      '-u',
      zone.plan.user,
      '--',
      'env',
      `HOME=${zone.userHome}`,
      `KLAUDE_HOME=${zone.zoneHome}`,
      'node',
      KLAUDE_CLI,
      ...args,
    ],
    { cwd: '/', cols: 200, rows: 40 },
  );
  await s.exited;
  return s.text();
}

async function startDetached(h: AgentHome, prompt: string): Promise<string> {
  const r = await h.k(['start', 'general', prompt, '--zone', 'build', '--json'], { timeoutMs: 90_000 });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).sessions[0].id as string;
}

describe('klaude start --zone', () => {
  it('runs the agent over there and streams it here, its log a byte copy of the zone’s', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    const r = await h.k(['start', 'general', 'hello from here', '--zone', 'build'], { timeoutMs: 90_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Reply to: hello from here — done.');
    expect(r.code).toBe(0);
    const id = /started (\w{8})/.exec(r.stdout)![1]!;
    const rows = await sessionsJson(h);
    const row = rows.find((s: any) => s.id.endsWith(id));
    expect(row.status).toBe('done');
    const local = readFileSync(row.logPath, 'utf8');
    await until('the zone log to be complete', () => zoneLogOf(row.id).length === local.length, 10_000);
    expect(local).toBe(zoneLogOf(row.id));
  }, 120_000);
});

describe('through the zone link', () => {
  let h: AgentHome;
  beforeAll(() => {
    h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
  });

  it('a permission request over there is answered here by the person, and by no one over there', async () => {
    const id = await startDetached(h, `run: python3 -c "print('zone-' + 'ok')"`);
    const row = await waitForRow(h, id, 'the request to show here', (r) => r.pendingApprovals === 1);
    expect(row.status).toBe('waiting');
    expect(row.approval.tool).toBe('Bash');

    // Not a terminal of the person's (a plain child process): refused here, by the link.
    const bot = await h.k(['approve', id]);
    expect(bot.code).not.toBe(0);
    expect(bot.stderr).toContain('E_APPROVAL_BY_PERSON');
    // A person at the zone's own terminal is not the person who started it: refused over there.
    const there = await zoneTerminal(['approve', id.slice(-8)]);
    expect(there).toContain('E_APPROVAL_BY_PERSON');
    expect(there).toContain('started from another machine');

    const ok = await runInTerminal(['approve', id], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
    expect(ok.stdout).not.toContain('klaude:');
    expect(ok.code).toBe(0);
    const done = await waitForRow(h, id, 'the agent to finish', (r) => r.status === 'done');
    expect(done.pendingApprovals).toBe(0);
    const log = readFileSync(done.logPath, 'utf8');
    expect(log).toContain('Tool said: zone-ok');
    expect(log).toMatch(/"type":"approval_answer"[^\n]*"by":"person at \/dev\/pts\/\d+, through the zone link"/);
  }, 180_000);

  it('a message resumes the agent over there; an interrupt stops its turn', async () => {
    const id = await startDetached(h, 'first');
    await waitForRow(h, id, 'the first turn to end', (r) => r.status === 'done');
    const m = await h.k(['message', id, 'second', '-f'], { timeoutMs: 90_000 });
    expect(m.stderr).toBe('');
    expect(m.stdout).toContain('resumed');
    expect(m.stdout).toContain('Reply to: second — done.');

    const slow = await startDetached(h, 'slow: take your time');
    const row = await waitForRow(
      h,
      slow,
      'text to stream here',
      (r) => r.status === 'running' && /word/.test(r.lastText ?? readFileSync(r.logPath, 'utf8')),
    );
    const i = await h.k(['interrupt', slow]);
    expect(i.stderr).toBe('');
    expect(i.code).toBe(0);
    const ended = await waitForRow(h, slow, 'the turn to end interrupted', (r) => r.status === 'interrupted');
    expect(readFileSync(ended.logPath, 'utf8')).toBe(zoneLogOf(row.id));
  }, 180_000);
});

async function linkState(h: AgentHome): Promise<string | null> {
  const r = await h.k(['zone', 'list', '--json']);
  return JSON.parse(r.stdout).zones[0]?.link?.state ?? null;
}

async function waitForLink(h: AgentHome, state: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while ((await linkState(h)) !== state) {
    if (Date.now() > deadline) throw new Error(`the link did not become ${state}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const userTexts = (log: string, text: string): number =>
  log.split('\n').filter((l) => l.includes('"type":"user"') && l.includes(JSON.stringify(text).slice(1, -1))).length;

describe('a dropped link', () => {
  it('loses no text and no message: the log resumes from its cursor, the held message goes once', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    const id = await startDetached(h, 'slow: keep going while the link is cut');
    await waitForRow(
      h,
      id,
      'text to stream here',
      (r) => r.status === 'running' && /word/.test(readFileSync(r.logPath, 'utf8')),
    );
    zone.linkDown();
    try {
      await waitForLink(h, 'offline');
      const m = await h.k(['message', id, 'after the cut']);
      expect(m.stderr).toBe('');
      expect(m.stdout).toContain('held for');
      const held = JSON.parse((await h.k(['zone', 'list', '--json'])).stdout).zones[0].link.outbox;
      expect(held).toBe(1);
    } finally {
      zone.linkUp();
    }
    const done = await waitForRow(
      h,
      id,
      'the agent to finish both turns',
      (r) => r.status === 'done' && /Reply to: after the cut/.test(r.lastText ?? ''),
      180_000,
    );
    const local = readFileSync(done.logPath, 'utf8');
    expect(local).toBe(zoneLogOf(done.id));
    expect(local).toContain('word word');
    expect(userTexts(local, 'after the cut')).toBe(1);
    expect(JSON.parse((await h.k(['zone', 'list', '--json'])).stdout).zones[0].link.outbox).toBe(0);
  }, 240_000);
});

describe('a zone that loses its processes', () => {
  it('is recovered as a local crash is: the turn resumes over there and shows here', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    const id = await startDetached(h, 'slow: a long turn the zone will lose');
    await waitForRow(
      h,
      id,
      'text to stream here',
      (r) => r.status === 'running' && /word/.test(readFileSync(r.logPath, 'utf8')),
    );
    // As a reboot: the zone unreachable, every process of its user gone at once with no one left to
    // notice (a reaper a dying runtime started goes too), then the zone back (its sshd lives on).
    zone.linkDown();
    try {
      for (let i = 0; i < 20 && zone.userPids().length > 0; i++) {
        zone.killUser();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(zone.userPids()).toEqual([]);
    } finally {
      zone.linkUp();
    }
    const done = await waitForRow(h, id, 'the recovered turn to finish', (r) => r.status === 'done', 180_000);
    const local = readFileSync(done.logPath, 'utf8');
    expect(local).toContain('[RESUME]');
    expect(local).toContain('"source":"recover"');
    expect(local).toBe(zoneLogOf(done.id));
  }, 240_000);
});

describe('review across the link', () => {
  it('diff shows the agent’s work over there; merge commits it there, fetches its branch and merges it here', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    const id = await startDetached(h, `run: python3 -c "open('zone.txt','w').write('made in the zone\\n')"`);
    await waitForRow(h, id, 'the request to show here', (r) => r.pendingApprovals === 1);
    const ok = await runInTerminal(['approve', id], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
    expect(ok.code).toBe(0);
    await waitForRow(h, id, 'the agent to finish', (r) => r.status === 'done');

    const d = await h.k(['diff', id, '--json']);
    expect(d.stderr).toBe('');
    const diff = JSON.parse(d.stdout);
    expect(diff.files).toEqual([{ path: 'zone.txt', status: 'added', added: 1, deleted: 0 }]);
    expect(diff.patch).toContain('+made in the zone');
    expect(diff.note).toContain('in zone build');

    const m = await h.k(['merge', id]);
    expect(m.stderr).toBe('');
    expect(m.stdout).toContain('committed the uncommitted work');
    expect(m.stdout).toMatch(/merged klaude\/\w+-general into main/);
    expect(readFileSync(join(h.projectDir, 'zone.txt'), 'utf8')).toBe('made in the zone\n');
  }, 180_000);
});

describe('the tree an agent starts from', () => {
  it('is this machine’s HEAD, pushed to the zone when the zone lacks it', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    writeFileSync(join(h.projectDir, 'local.txt'), 'committed here only\n');
    execFileSync('git', ['add', 'local.txt'], { cwd: h.projectDir });
    execFileSync('git', ['commit', '-qm', 'here only'], { cwd: h.projectDir });
    const r = await h.k(['start', 'general', 'run: cat local.txt', '--zone', 'build'], { timeoutMs: 90_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Tool said: committed here only');
  }, 120_000);
});

/** The zone's own listing of its agents (its klaude, in its clone: the project its serve works in). */
function zoneRows(): any[] {
  const out = zone.asUser(
    'env',
    [`HOME=${zone.userHome}`, `KLAUDE_HOME=${zone.zoneHome}`, 'node', KLAUDE_CLI, 'sessions', '--json'],
    zone.clone,
  );
  const j = JSON.parse(out);
  return j.sessions ?? j;
}

describe('what a start carries to the zone', () => {
  it('--skill runs the zone clone’s skill over there; --priority and --no-sandbox are the agent’s there', async () => {
    const h = homes.home({ config: zone.zoneYaml() });
    cloneToZone(zone, h.projectDir);
    responder();
    const dir = join(h.projectDir, '.claude', 'skills', 'greet');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'SKILL.md'),
      '---\nname: greet\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS with ZONE-SKILL-MARKER.\n',
    );
    execFileSync('git', ['add', '.claude'], { cwd: h.projectDir });
    execFileSync('git', ['commit', '-qm', 'a skill'], { cwd: h.projectDir });
    // Skills (and agent types) are read from the clone as it is checked out over there: not there yet.
    const missing = await h.k(['start', 'general', 'Bob', '--skill', 'greet', '--zone', 'build', '-d']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("in zone build: no skill 'greet' here [E_UNKNOWN_SKILL]");
    cloneToZone(zone, h.projectDir); // pushed there: the clone's checkout takes it (updateInstead)
    const args = [
      'start',
      'general',
      'Bob',
      '--skill',
      'greet',
      '--priority',
      'low',
      '--no-sandbox',
      '--zone',
      'build',
    ];
    const r = await h.k(args, { timeoutMs: 90_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const asked = homes.mock.mainRequests().find((q) => q.prompt.includes('ZONE-SKILL-MARKER'));
    expect(asked?.prompt).toContain('Say hello to Bob with ZONE-SKILL-MARKER.');
    const id = /started (\w{8})/.exec(r.stdout)![1]!;
    const there = zoneRows().find((s: any) => s.id.endsWith(id));
    expect(there.priority).toBe('low');
    expect(there.sandbox).toMatch(/^unsandboxed/);
  }, 120_000);
});

describe('klaude zone', () => {
  it('add writes the zone; check says what is missing with the fix; setup pushes the clone', async () => {
    const h = homes.home({});
    cloneToZone(zone, h.projectDir);
    const opts = ['-F', zone.sshConfig, '-o', 'ConnectTimeout=3'].flatMap((o) => [`--ssh-option=${o}`]);
    const klaude = `node ${KLAUDE_CLI}`;
    const add = await h.k(['zone', 'add', 'fresh', zone.alias, `~/fresh-${zone.plan.id}`, '--klaude', klaude, ...opts]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const config = readFileSync(join(h.klaudeHome, 'config.yaml'), 'utf8');
    expect(config).toContain('notify:'); // what was there stays
    expect(config).toContain(`ssh: ${zone.alias}`);

    const check = await h.k(['zone', 'check', 'fresh']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/✔ ssh +zone-\w+: \d+ ms the first time, \d+ ms a round trip after \(multiplexed\)/);
    expect(check.stdout).toMatch(/✔ claude .*claude \d/);
    expect(check.stdout).toMatch(/✗ clone +there is no \/home\/kz\w+\/fresh-\w+\n +fix: klaude zone setup/);

    const setup = await h.k(['zone', 'setup', 'fresh']);
    expect(setup.stderr).toBe('');
    expect(setup.stdout).toContain(`pushed ${h.projectDir} (main) to ${zone.alias}:~/fresh-${zone.plan.id}`);
    expect(setup.stdout).toMatch(/✔ clone +\/home\/kz\w+\/fresh-\w+ at [0-9a-f]{10}/);
    expect(setup.stdout).toContain('zone fresh is ready');
    expect(setup.code).toBe(0);

    const bad = await h.k(['zone', 'add', 'nothere', zone.alias, '~/proj', '--klaude', 'no-such-klaude', ...opts]);
    expect(bad.code).toBe(0);
    const missing = await h.k(['zone', 'check', 'nothere']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(
      /✗ klaude +`no-such-klaude` does not run on zone-\w+: .*not found\n +fix: klaude zone setup installs this klaude there/,
    );

    const list = await h.k(['zone', 'list']);
    expect(list.stdout).toMatch(/^ZONE +SSH +PATH +AGENTS +LINK$/m);
    expect(list.stdout).toMatch(/^fresh +zone-\w+ +~\/fresh-\w+ +0 +no link$/m);
  }, 120_000);
});
