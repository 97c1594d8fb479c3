// The supervisor's agent actions (src/supervisor/agent-handlers.ts) behind a real control socket,
// driven by the built `klaude start/message/interrupt` commands and the real claude: the start goes
// through the socket (the supervisor's instance is recorded), session events are published, and
// --checkout asks the switcher to check the new agent out once its conversation exists.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { socketPath } from '../../src/config/paths.js';
import type { ControlEvent } from '../../src/control/protocol.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { getSession, createSession } from '../../src/db/repos/sessions.js';
import { nullLogger } from '../../src/lib/logger.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { agentHandlers } from '../../src/supervisor/agent-handlers.js';
import type { SupervisorContext } from '../../src/supervisor/context.js';
import type { HandlerDeps } from '../../src/supervisor/handler-deps.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';

let mock: MockAnthropic;
let home: TempHome;
let svc: AgentServices;
let server: ControlServer;
const published: ControlEvent[] = [];
const checkouts: { target?: string }[] = [];
let rootId: string;
let instanceId: string;
let sock: string;

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: (r) => {
      if (r.isToolResult) return { text: `Tool said: ${r.toolResults.map((t) => t.content).join(' ')}` };
      if (r.prompt.startsWith('run: ')) return { bash: { command: r.prompt.slice(5) } };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome({ baseUrl: mock.url });
  writeFileSync(
    join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  allowedTools: [Bash]\n`,
  );
  const inv = { node: process.execPath, cli: KLAUDE_CLI };
  svc = openAgentServices({ env: home.env, cwd: home.projectDir, inv });
  instanceId = '01JSUPERV1S0R0000000000000';
  sock = socketPath(svc.home, svc.projectHash, instanceId, home.env);
  createInstance(svc.db, {
    id: instanceId,
    projectId: svc.projectHash,
    pid: process.pid,
    socketPath: sock,
    cwd: home.projectDir,
    mode: 'cli',
  });
  rootId = createSession(svc.db, { projectId: svc.projectHash, type: 'tui', status: 'idle', instanceId }).id;
  const ctx = {
    home: svc.home,
    config: loadConfig(svc.home).config,
    cwd: home.projectDir,
    projectRoot: svc.projectRoot,
    projectHash: svc.projectHash,
    db: svc.db,
    log: nullLogger,
    instanceId,
    socketPath: sock,
    shimDir: home.root,
    inv,
    claudeBin: CLAUDE_BIN,
    passthrough: {},
    env: home.env,
  } as unknown as SupervisorContext;
  const deps = {
    ctx,
    switcher: {
      foreground: null,
      checkout: async (req: { target?: string }) => {
        checkouts.push(req);
        return { sessionId: req.target!, claudeSessionId: 'x', pid: 1 };
      },
    },
    rootSessionId: () => rootId,
    startedAt: Date.now(),
    publish: (e: ControlEvent) => published.push(e),
  } as unknown as HandlerDeps;
  server = await startControlServer({ socketPath: sock, handlers: agentHandlers(deps) });
});

afterAll(async () => {
  killRuntimeGroups(svc.db.sqlite);
  await server?.close();
  svc?.db.close();
  await mock?.close();
  home?.cleanup();
});

const env = (): Record<string, string> => ({ ...home.env, KLAUDE_SOCKET: sock });

describe('supervisor agent actions over the socket', () => {
  it('starts agents through the supervisor: its instance on the rows, top level from a plain shell (no KLAUDE_SESSION_ID), events published', async () => {
    const r = await runKlaude(['start', 'general', 'through the socket', '2', '--json'], {
      env: env(),
      cwd: home.projectDir,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { sessions: { id: string; via: string }[] };
    expect(out.sessions).toHaveLength(2);
    expect(out.sessions.every((s) => s.via === 'supervisor')).toBe(true);
    const rows = out.sessions.map((s) => getSession(svc.db, s.id)!);
    // The parent is the klaude session of the caller's terminal; a plain shell has none.
    for (const s of rows) expect(s).toMatchObject({ instanceId, parentId: null, type: 'general' });
    expect(
      published.filter((e) => e.type === 'session.created').map((e) => (e as { sessionId: string }).sessionId),
    ).toEqual(out.sessions.map((s) => s.id));
    const w = await waitForAgents(svc, rows, { timeoutMs: 60_000 });
    expect(w.finished.map((s) => s.status)).toEqual(['done', 'done']);
  });

  it("gives the agent's CLI an environment pointing back here: its own session id, this socket, klaude on PATH", async () => {
    const r = await runKlaude(
      ['start', 'general', 'run: echo "$KLAUDE_SESSION_ID|$KLAUDE_SOCKET|$(command -v klaude)"'],
      { env: env(), cwd: home.projectDir },
    );
    expect(r.code).toBe(0);
    const id = findId(r.stdout);
    const [sid, socket, klaude] = /Tool said: (.*)/.exec(r.stdout)![1]!.split('|');
    expect(sid).toBe(id);
    expect(socket).toBe(sock);
    expect(klaude).toMatch(/\/klaude$/);
  });

  it('KLAUDE_SESSION_ID names the parent; --priority goes through the socket too', async () => {
    const parent = createSession(svc.db, { projectId: svc.projectHash, type: 'general', status: 'done' });
    const r = await runKlaude(['start', 'general', 'child of a child', '-d', '--json', '--priority', 'high'], {
      env: { ...env(), KLAUDE_SESSION_ID: parent.id },
      cwd: home.projectDir,
    });
    expect(r.code).toBe(0);
    const [s] = (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions;
    expect(getSession(svc.db, s!.id)).toMatchObject({ parentId: parent.id, instanceId, priority: 1 });
    await waitForAgents(svc, [getSession(svc.db, s!.id)!], { timeoutMs: 60_000 });
  });

  it('--checkout returns at once and checks the agent out when its first turn has ended', async () => {
    const r = await runKlaude(['start', 'general', 'check me out', '-c'], { env: env(), cwd: home.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = findId(r.stdout);
    expect(r.stdout).toMatch(/^started (\w{8}) \(general, claude\)\nswitching to \1 when its turn ends: /);
    await expect.poll(() => checkouts.length, { timeout: 30_000 }).toBe(1);
    expect(getSession(svc.db, id)!.status).toBe('done'); // the turn finished first
    expect(checkouts[0]).toEqual({ target: id, force: true });
  });

  it('--checkout --now switches once the conversation has begun; --now alone is a usage error', async () => {
    const bad = await runKlaude(['start', 'general', 'x', '--now'], { env: env(), cwd: home.projectDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--now goes with -c\/--checkout \[E_USAGE\]/);
    const r = await runKlaude(['start', 'general', 'check me out now', '-c', '--now'], {
      env: env(),
      cwd: home.projectDir,
    });
    expect(r.code, r.stderr).toBe(0);
    const id = findId(r.stdout);
    expect(r.stdout).toMatch(/switching to \w{8} now: /);
    await expect.poll(() => checkouts.length, { timeout: 30_000 }).toBe(2);
    expect(checkouts[1]).toEqual({ target: id, force: true });
  });

  it('answers message and interrupt for agents (E_AGENT_NOT_RUNNING per id in the result)', async () => {
    const { controlRequest } = await import('../../src/control/client.js');
    const [done] = svc.db.sqlite
      .prepare("SELECT id FROM sessions WHERE type = 'general' AND status = 'done' AND prompt = 'through the socket'")
      .all() as { id: string }[];
    const res = await controlRequest(sock, 'interrupt', { sessionIds: [done!.id] });
    expect(res.results).toEqual([{ sessionId: done!.id, ok: false, code: 'E_AGENT_NOT_RUNNING' }]);
    const m = await controlRequest(
      sock,
      'message',
      { sessionId: done!.id, prompt: 'one more thing' },
      { timeoutMs: 20_000 },
    );
    expect(m.delivered).toBe('resumed');
    const w = await waitForAgents(svc, [getSession(svc.db, done!.id)!], { timeoutMs: 60_000 });
    expect(w.finished[0]).toMatchObject({ status: 'done', lastText: 'Reply to: one more thing' });
  });
});

function findId(stdout: string): string {
  const short = /started (\w{8})/.exec(stdout)![1]!;
  const row = svc.db.sqlite.prepare('SELECT id FROM sessions WHERE id LIKE ?').get(`%${short}`) as { id: string };
  return row.id;
}
