// The person's authority is not an agent's to take, whatever it does to its environment (issue 38),
// with the real claude against the Messages-API stand-in:
// - from an agent's Bash tool, `env -u CLAUDECODE klaude web` makes no sign-in link, and a sign-in
//   it sends with a link it got hold of is refused (and spends the link);
// - a client that writes its answer to a runtime and hangs up at once is refused, whatever pid it
//   claims: the request stays pending;
// - an answer from the web carries what the page's sign-in proved, and the bearer token (any
//   process of yours can read its file) answers nothing;
// - an agent started from the page runs with the environment of the person whose link signed the
//   page in, not with that of whoever started the server.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { logFilePath } from '../../src/config/paths.js';
import { agentSocketPath } from '../../src/control/agent-socket.js';
import { approvalsOf } from '../../src/db/repos/approvals.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { mintLink } from '../../src/web/links.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import type { TempHome } from '../support/temp-home.js';
import { runInTerminal } from '../support/terminal-run.js';
import { until } from '../support/until.js';
import { http, testOwner, type WebServer } from '../support/web-client.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult)
      return {
        text: `Tool said: ${r.toolResults.map((t) => `${t.isError ? 'error' : 'ok'}:${t.content}`).join(' ')}`,
      };
    if (r.prompt.startsWith('run: '))
      return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: 'Running it.' };
    return { text: `Reply to: ${r.prompt}` };
  },
});

// Unsandboxed: these are the second line (a sandboxed agent cannot even reach klaude's files or the
// web server: test/e2e/sandbox-escapes.test.ts).
const ALLOWED = 'agents:\n  sandbox: off\n  allowedTools:\n    - "Bash(env:*)"\n    - "Bash(printenv:*)"\n';

function setup(env: Record<string, string> = {}): { home: AgentHome; svc: AgentServices } {
  const home = fx.home({ prefix: 'klaude-webauth-', env, config: ALLOWED });
  return { home, svc: home.services() };
}

async function start(svc: AgentServices, prompt: string): Promise<string> {
  return (await startAgents(svc, { type: 'general', prompt })).sessions[0]!.id;
}

async function finished(svc: AgentServices, id: string) {
  const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 90_000 });
  expect(r.timedOut).toBe(false);
  return getSession(svc.db, id)!;
}

const CMD = 'python3 -c "print(6*7)"';
const waiting = (svc: AgentServices, id: string) =>
  until('the agent waits for an answer', () => getSession(svc.db, id)?.status === 'waiting', 60_000);

/** A link made by `klaude web` in a terminal of the person's own (its JSON line, read off the terminal). */
async function linkFromTerminal(home: TempHome, env: Record<string, string> = {}): Promise<string> {
  const r = await runInTerminal(['web', '--json'], { env: { ...home.env, ...env }, cwd: home.projectDir });
  const json = r.stdout.split('\n').find((l) => l.startsWith('{'));
  const link = /#token=([A-Za-z0-9_-]{43})/.exec(json ?? '')?.[1];
  if (!link) throw new Error(`no link from klaude web in a terminal: ${r.stdout}`);
  return link;
}

async function signInWith(w: WebServer, token: string): Promise<string> {
  const r = await http(w.port, 'POST', '/api/login', { headers: { origin: w.origin }, body: { token } });
  expect(r.status, r.body).toBe(200);
  const set = r.headers['set-cookie'];
  return String(Array.isArray(set) ? set[0] : set).split(';')[0]!;
}

describe('the person’s authority, from inside an agent', () => {
  it('`env -u CLAUDECODE klaude web` in an agent makes no link; its sign-in with a leaked link is refused and spends it', async () => {
    const { home, svc } = setup();
    const w = await home.web();
    const web = await start(svc, `run: env -u CLAUDECODE ${process.execPath} ${KLAUDE_CLI} web --json`);
    const said = (await finished(svc, web)).lastText ?? '';
    expect(said).toContain(`127.0.0.1:${w.port}`);
    expect(said).not.toContain('#token=');
    expect(said).toContain('"noLink":"it runs inside an agent');

    const leaked = mintLink(home.klaudeHome, testOwner(w));
    const body = JSON.stringify({ token: leaked });
    const curl = `env curl -s -X POST -H 'Origin: ${w.origin}' -H 'Content-Type: application/json' --data '${body}' ${w.origin}/api/login`;
    const login = await start(svc, `run: ${curl}`);
    const got = (await finished(svc, login)).lastText ?? '';
    expect(got).toContain('E_WEB_FROM_AGENT');
    expect(got).not.toContain('"ok":true');
    // Spent: not even the person can use it now.
    const again = await http(w.port, 'POST', '/api/login', { headers: { origin: w.origin }, body: { token: leaked } });
    expect(again.status).toBe(401);
  }, 180_000);

  it('a client that writes its answer and hangs up at once is refused, even claiming a dashboard’s pid', async () => {
    const { home, svc } = setup();
    const id = await start(svc, `run: ${CMD}`);
    await waiting(svc, id);
    // A running dashboard whose pid the client claims (this test's own process).
    createInstance(svc.db, {
      projectId: svc.projectHash,
      pid: process.pid,
      socketPath: join(home.root, 'none.sock'),
      cwd: home.projectDir,
      mode: 'ui',
    });
    const { pid } = svc.db.sqlite
      .prepare("SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime' AND exited_at IS NULL")
      .get(id) as { pid: number };
    const sock = agentSocketPath(home.klaudeHome, svc.projectHash, id, home.env);
    const frame = JSON.stringify({
      v: 1,
      id: '1',
      action: 'answer',
      payload: { sessionId: id, behavior: 'allow', always: true, pid: process.pid },
    });
    // The runtime reads it only once the client is gone (stopped meanwhile, as a busy one would be).
    process.kill(pid, 'SIGSTOP');
    try {
      const c = spawnSync(process.execPath, [
        '-e',
        `const s = require('net').connect(${JSON.stringify(sock)}, () => s.write(${JSON.stringify(`${frame}\n`)}, () => process.exit(0)));`,
      ]);
      expect(c.status).toBe(0);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await until(
      'the runtime refused it (or took it)',
      () =>
        readFileSync(logFilePath(home.klaudeHome), 'utf8').includes('hung up before klaude could ask') ||
        approvalsOf(svc.db, id)[0]?.answer !== null,
      30_000,
    );
    expect(approvalsOf(svc.db, id).map((a) => a.answer)).toEqual([null]);
    expect(getSession(svc.db, id)!.status).toBe('waiting');
    // The person's answer from a terminal of their own still counts.
    const deny = await runInTerminal(['deny', id.slice(-8)], { env: home.env, cwd: home.projectDir });
    expect(deny.code, deny.stdout).toBe(0);
    expect((await finished(svc, id)).status).toBe('done');
  }, 180_000);
});

describe('the web page acts as the person who signed it in', () => {
  it("an answer from the page is recorded with what its sign-in proved; the bearer token's is refused", async () => {
    const { home, svc } = setup();
    const w = await home.web();
    const id = await start(svc, `run: ${CMD}`);
    await waiting(svc, id);
    const bearer = await http(w.port, 'POST', `/api/sessions/${id}/approve`, {
      headers: { authorization: `Bearer ${w.token}` },
      body: {},
    });
    expect(bearer.status).toBe(403);
    expect(bearer.body).toContain('E_APPROVAL_BY_PERSON');
    expect(getSession(svc.db, id)!.status).toBe('waiting');

    const cookie = await signInWith(w, await linkFromTerminal(home));
    const ok = await http(w.port, 'POST', `/api/sessions/${id}/approve`, {
      headers: { cookie, origin: w.origin },
      body: {},
    });
    expect(ok.status, ok.body).toBe(200);
    expect((await finished(svc, id)).status).toBe('done');
    expect(approvalsOf(svc.db, id)[0]!.answeredBy).toMatch(
      /^person \(web: signed in from 127\.0\.0\.1, link made at \/dev\/pts\/\d+\)$/,
    );
  }, 180_000);

  it('an agent started from the page gets the environment of the link’s maker, not the server’s', async () => {
    const { home, svc } = setup({ WHO_STARTED_IT: 'the server' });
    const w = await home.web();
    const link = /#token=(.+)$/.exec(
      JSON.parse(
        (
          await runKlaude(['web', '--json'], {
            env: { ...home.env, WHO_STARTED_IT: 'the page owner' },
            cwd: home.projectDir,
          })
        ).stdout,
      ).url,
    )![1]!;
    const cookie = await signInWith(w, link);
    const r = await http(w.port, 'POST', '/api/start', {
      headers: { cookie, origin: w.origin },
      body: { project: svc.projectHash, type: 'general', prompt: 'run: printenv WHO_STARTED_IT' },
    });
    expect(r.status, r.body).toBe(200);
    const [id] = (JSON.parse(r.body) as { result: { sessionIds: string[] } }).result.sessionIds;
    expect((await finished(svc, id!)).lastText).toBe('Tool said: ok:the page owner');
  }, 180_000);
});
