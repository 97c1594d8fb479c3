// A queued agent starts with its own starter's launch, whoever frees the slot: two projects in one
// klaude home, each started from its own environment (CLAUDE_CONFIG_DIR, API key and base URL,
// PATH, KLAUDE_SOCKET, a marker), `agents.maxRunning: 1`. Project A's run holds the slot, B's
// start queues, A's run ends (its runtime, in A's environment, starts B): B's claude must reach
// B's stand-in with B's key, its Bash tool must see B's environment and cwd, and its transcript
// must land in B's config dir. Also: a queued --worktree agent runs in its worktree. Real claude,
// two Messages-API stand-ins.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession, type SessionRow } from '../../src/db/repos/sessions.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { forgetLaunchEnv, keepLaunchEnv, launchEnvPath, launchFor } from '../../src/agent-ops/launch-env.js';
import { claudeTranscriptPath } from '../../src/claude/transcript.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic, type RecordedRequest } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';
import { until } from '../support/until.js';

const KEY_A = 'sk-ant-api03-klaude-test-key-project-A-000000000-AAAA';
const KEY_B = 'sk-ant-api03-klaude-test-key-project-B-000000000-BBBB';
/** What a queued agent's Bash tool prints: the environment it runs in, one `name=value` a line. */
const PRINT_ENV =
  'printf "marker=%s\\ncfg=%s\\nsock=%s\\npwd=%s\\npath=%s\\n" "$KLAUDE_TEST_MARKER" "$CLAUDE_CONFIG_DIR" "$KLAUDE_SOCKET" "$(pwd -P)" "$PATH"';

let mockA: MockAnthropic;
let mockB: MockAnthropic;
let home: TempHome;
let projectB: string;
let svcA: AgentServices;
let svcB: AgentServices;
/** Opened by the test: until then, A's turn does not end (its run holds the only slot). */
let releaseA: () => void = () => undefined;
let gateA: Promise<void> = Promise.resolve();

function holdA(): void {
  gateA = new Promise<void>((r) => (releaseA = r));
}

/** Both stand-ins: a held prompt waits for the gate; `print env` runs PRINT_ENV; tool results end the turn. */
async function responder(r: RecordedRequest) {
  if (r.isToolResult) return { text: 'Printed.' };
  if (r.prompt.startsWith('hold the slot')) {
    await gateA;
    return { text: 'Slot released.' };
  }
  if (r.prompt.startsWith('print env')) return { bash: { command: PRINT_ENV, description: 'print env' } };
  return { text: `Reply to: ${r.prompt}` };
}

/** A Claude config dir of its own: the test home's .claude.json with both keys approved and both projects trusted. */
function configDir(name: string): string {
  const dir = join(home.root, name);
  mkdirSync(dir, { recursive: true });
  const j = JSON.parse(readFileSync(home.claudeJsonPath, 'utf8')) as Record<string, unknown>;
  j.customApiKeyResponses = { approved: [KEY_A.slice(-20), KEY_B.slice(-20)], rejected: [] };
  writeFileSync(join(dir, '.claude.json'), JSON.stringify(j, null, 2));
  return dir;
}

function envOf(p: { name: string; mock: MockAnthropic; key: string; socket?: string }): Record<string, string> {
  const bin = join(home.root, `bin-${p.name}`);
  mkdirSync(bin, { recursive: true });
  const env: Record<string, string> = {
    ...home.env,
    CLAUDE_CONFIG_DIR: configDir(`claude-config-${p.name}`),
    ANTHROPIC_BASE_URL: p.mock.url,
    ANTHROPIC_API_KEY: p.key,
    KLAUDE_TEST_MARKER: `from-${p.name}`,
    PATH: `${bin}:${home.env.PATH}`,
  };
  if (p.socket) env.KLAUDE_SOCKET = p.socket;
  return env;
}

function gitIn(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', ...args], {
    cwd,
    env: home.env,
    stdio: 'ignore',
  });
}

beforeAll(async () => {
  mockA = await startMockAnthropic({ responder });
  mockB = await startMockAnthropic({ responder });
  home = makeTempHome({ baseUrl: 'http://127.0.0.1:9', prefix: 'klaude-qenv-' });
  projectB = join(home.root, 'project-b');
  mkdirSync(projectB);
  projectB = realpathSync(projectB);
  home.trustDir(projectB);
  // Project A is a git repository (the --worktree test).
  writeFileSync(join(home.projectDir, 'README.md'), 'project A\n');
  gitIn(home.projectDir, 'init', '-q', '-b', 'main');
  gitIn(home.projectDir, 'add', '.');
  gitIn(home.projectDir, 'commit', '-q', '-m', 'init');
  writeFileSync(
    join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  maxRunning: 1\n  allowedTools: [Bash]\n`,
  );
  const inv = { node: process.execPath, cli: KLAUDE_CLI };
  const envA = envOf({ name: 'A', mock: mockA, key: KEY_A, socket: join(home.root, 'supervisor-of-A.sock') });
  svcA = openAgentServices({ env: envA, cwd: home.projectDir, inv });
  svcB = openAgentServices({ env: envOf({ name: 'B', mock: mockB, key: KEY_B }), cwd: projectB, inv });
});

afterAll(async () => {
  // No runtime or CLI may outlive the tests (the last run may still be closing its CLI).
  if (svcA?.db) killRuntimeGroups(svcA.db.sqlite);
  svcA?.db.close();
  svcB?.db.close();
  await mockA?.close();
  await mockB?.close();
  home?.cleanup();
});

async function start(svc: AgentServices, prompt: string, cwd: string, worktree = false) {
  const out = await startAgents(svc, { type: 'general', prompt, cwd, worktree });
  const s = out.sessions[0]!;
  return { id: s.id, queued: out.queued[s.id] ?? 0 };
}

/** What PRINT_ENV printed, as name → value. */
function printedEnv(r: RecordedRequest): Record<string, string> {
  const text = r.toolResults[0]!.content;
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

const row = (id: string): SessionRow => getSession(svcA.db, id)!;

describe('queued agents launch as their starter would have', () => {
  it("B, queued behind A's run, starts with B's environment, credentials and cwd when A's run frees the slot", async () => {
    holdA();
    const a = await start(svcA, 'hold the slot (A)', home.projectDir);
    expect(a.queued).toBe(0);
    await mockA.waitForRequest((r) => r.prompt.startsWith('hold the slot'), 60_000);

    const b = await start(svcB, 'print env (B)', projectB);
    expect(b.queued).toBe(1);
    expect(row(b.id).status).toBe('queued');
    // Kept for B until its run is over: its own environment, private to the person.
    const kept = launchEnvPath(home.klaudeHome, b.id);
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(kept, 'utf8')).env).toMatchObject({ ANTHROPIC_API_KEY: KEY_B });
    // No secret in the row every listing reads.
    expect(JSON.stringify(row(b.id).metadata)).not.toContain(KEY_B);

    releaseA(); // A's run ends; its runtime (A's environment) starts B.
    const done = await waitForAgents(svcB, [row(a.id), row(b.id)], { timeoutMs: 120_000 });
    expect(done.finished.map((s) => s.status)).toEqual(['done', 'done']);

    // B's claude talked to B's stand-in with B's key, never to A's.
    const bReq = mockB.mainRequests().find((r) => r.prompt === 'print env (B)')!;
    expect(bReq).toBeDefined();
    expect(bReq.headers['x-api-key']).toBe(KEY_B);
    expect(mockA.requests.some((r) => r.prompt === 'print env (B)' || r.isToolResult)).toBe(false);
    // Its Bash tool ran in B's environment and B's project.
    const printed = printedEnv(mockB.mainRequests().find((r) => r.isToolResult)!);
    expect(printed).toMatchObject({
      marker: 'from-B',
      cfg: svcB.env.CLAUDE_CONFIG_DIR,
      sock: '', // A's supervisor socket is not B's
      pwd: projectB,
    });
    expect(printed.path).toContain(join(home.root, 'bin-B'));
    expect(printed.path).not.toContain(join(home.root, 'bin-A'));
    // Claude kept B's conversation in B's config dir.
    const nativeB = row(b.id).nativeSessionId!;
    expect(existsSync(claudeTranscriptPath(projectB, nativeB, svcB.env))).toBe(true);
    expect(existsSync(claudeTranscriptPath(projectB, nativeB, svcA.env))).toBe(false);

    // Once the runs are over, their kept environments are gone.
    await until(
      'the launch environments of ended runs to be deleted',
      () => !existsSync(kept) && !existsSync(launchEnvPath(home.klaudeHome, a.id)),
    );
  }, 150_000);

  it('a queued --worktree agent runs in its worktree, not in the project', async () => {
    holdA();
    const a = await start(svcA, 'hold the slot (A again)', home.projectDir);
    expect(a.queued).toBe(0);
    await mockA.waitForRequest((r) => r.prompt === 'hold the slot (A again)', 60_000);
    const w = await start(svcA, 'print env (worktree)', home.projectDir, true);
    expect(w.queued).toBe(1);
    const worktree = row(w.id).worktreePath!;
    expect(worktree).toBeTruthy();
    const toolResults = mockA.mainRequests().filter((r) => r.isToolResult).length;

    releaseA();
    const done = await waitForAgents(svcA, [row(a.id), row(w.id)], { timeoutMs: 120_000 });
    expect(done.finished.map((s) => s.status)).toEqual(['done', 'done']);
    const printed = printedEnv(mockA.mainRequests().filter((r) => r.isToolResult)[toolResults]!);
    expect(printed.pwd).toBe(realpathSync(worktree));
    expect(printed.pwd).not.toBe(home.projectDir);
  }, 150_000);
});

describe('launchFor (the launch a session is relaunched with)', () => {
  it('is the kept launch while there is one, else the caller’s, without another project’s supervisor', () => {
    const s = { id: '01TESTLAUNCHFOR0000000000X', projectId: svcB.projectHash };
    // Nothing kept: the caller's environment, its supervisor dropped when it is another project's.
    const fallback = launchFor(svcA, s);
    expect(fallback.kept).toBe(false);
    expect(fallback.env.KLAUDE_TEST_MARKER).toBe('from-A');
    expect(fallback.env.KLAUDE_SOCKET).toBeUndefined();
    expect(fallback.env.KLAUDE_PROJECT_HASH).toBe(svcB.projectHash);
    expect(
      launchFor({ ...svcA, env: { ...svcA.env, KLAUDE_PROJECT_HASH: svcB.projectHash } }, s).env.KLAUDE_SOCKET,
    ).toBe(svcA.env.KLAUDE_SOCKET);
    // Kept: the starter's, whoever asks (crash recovery from another project's command).
    keepLaunchEnv(home.klaudeHome, s.id, { env: svcB.env, inv: svcB.inv });
    try {
      const own = launchFor(svcA, s);
      expect(own.kept).toBe(true);
      expect(own.env).toMatchObject({ KLAUDE_TEST_MARKER: 'from-B', ANTHROPIC_API_KEY: KEY_B });
      expect(own.env.KLAUDE_PROJECT_HASH).toBe(svcB.projectHash);
    } finally {
      forgetLaunchEnv(home.klaudeHome, s.id);
    }
  });
});
