// Permission approvals with the real claude (`--permission-prompt-tool stdio`) against the
// Messages-API stand-in, whose reply asks for a Bash command no setting allows (python3 -c …):
// the agent goes `waiting` with the command in `sessions --json`; `klaude approve` lets it run to
// `done`; `klaude deny --reason` shows the reason to the model; `--always` writes the rule and the
// next identical call is not asked; the parent Claude gets `[NEEDS APPROVAL]` through PostToolUse.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { approvalsOf } from '../../src/db/repos/approvals.js';
import { waitForPidExit } from '../../src/lib/process.js';
import type { AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { KLAUDE_CLI, REPO_ROOT, runKlaude } from '../support/klaude-bin.js';
import { runInTerminal } from '../support/terminal-run.js';
import { runProcess } from '../support/run-process.js';
import type { TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';
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

/** A fresh temp home + project for each test (its own settings.local.json, its own DB). */
function setup(config = ''): {
  home: AgentHome;
  svc: AgentServices;
  klaude: (args: string[], env?: Record<string, string>) => ReturnType<typeof runKlaude>;
} {
  const home = fx.home({ prefix: 'klaude-approve-', config });
  const svc = home.services();
  // The person answers from a terminal of their own (approve/deny count only from such a place).
  const klaude = (args: string[], env: Record<string, string> = {}) =>
    (ANSWERS.includes(args[0]!) ? runInTerminal : runKlaude)(args, {
      env: { ...home.env, ...env },
      cwd: home.projectDir,
      timeoutMs: 60_000,
    });
  return { home, svc, klaude };
}

const events = (svc: AgentServices, id: string): AgentEvent[] =>
  readFileSync(getSession(svc.db, id)!.logPath!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AgentEvent);

/** `klaude sessions --json` until the agent is waiting on a request (a text condition, generous limit). */
async function waitingInSessions(
  klaude: ReturnType<typeof setup>['klaude'],
  id: string,
  timeoutMs = 60_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const r = await klaude(['sessions', '--json']);
    last = r.stdout;
    const flat = (ns: any[]): any[] => ns.flatMap((n) => [n, ...flat(n.children)]);
    const row = flat(JSON.parse(r.stdout)).find((n) => n.id === id);
    if (row?.status === 'waiting' && row.approval) return row;
    if (row && ['done', 'failed', 'interrupted'].includes(row.status))
      throw new Error(`agent ended ${row.status} without asking: ${last}`);
    if (Date.now() > deadline) throw new Error(`agent never waited for approval; last sessions --json: ${last}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function start(svc: AgentServices, home: TempHome, prompt: string, parentId?: string): Promise<string> {
  const out = await startAgents(svc, {
    type: 'general',
    prompt,
    cwd: home.projectDir,
    ...(parentId ? { parentId } : {}),
  });
  return out.sessions[0]!.id;
}

async function finished(svc: AgentServices, id: string) {
  const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
  expect(r.timedOut).toBe(false);
  return getSession(svc.db, id)!;
}

const ANSWERS = ['approve', 'deny'];
const CMD = 'python3 -c "print(6*7)"';

describe('permission approvals (real claude)', () => {
  it('waits with the command in sessions --json; klaude approve runs it and the agent ends done with its output', async () => {
    const { home, svc, klaude } = setup();
    const id = await start(svc, home, `run: ${CMD}`);
    const row = await waitingInSessions(klaude, id);
    expect(row.approval).toMatchObject({
      tool: 'Bash',
      summary: CMD,
      rule: `Bash(${CMD})`,
      reason: 'This command requires approval',
    });
    expect(row.approval.input).toMatchObject({ command: CMD });
    expect(row.pendingApprovals).toBe(1);
    // The readable listing and status say so too.
    expect((await klaude(['sessions'], { COLUMNS: '200' })).stdout).toContain(`needs approval: Bash: ${CMD}`);
    expect((await klaude(['status'])).stdout).toContain(`Bash: ${CMD}`);

    const ok = await klaude(['approve', id.slice(-8)]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`allowed ${id.slice(-8)} request ${row.approval.id}: Bash: ${CMD}`);
    const s = await finished(svc, id);
    expect(s.status).toBe('done');
    expect(s.lastText).toBe('Tool said: ok:42');
    const ev = events(svc, id);
    expect(ev.find((e) => e.type === 'tool_result')).toMatchObject({ isError: false, output: '42' });
    expect(ev.find((e) => e.type === 'approval_request')).toMatchObject({
      tool: 'Bash',
      summary: CMD,
      approvalId: row.approval.id,
    });
    // Who answered, as the runtime found it: the person, at the terminal the command ran in.
    expect(ev.find((e) => e.type === 'approval_answer')).toMatchObject({
      behavior: 'allow',
      by: expect.stringMatching(/^person at \/dev\/pts\/\d+$/),
    });
    expect(ev.filter((e) => e.type === 'status').map((e) => (e as { status: string }).status)).toEqual([
      'running',
      'waiting',
      'running',
    ]);
    // Nothing left to answer.
    const again = await klaude(['approve', id.slice(-8)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('E_NO_PENDING_APPROVAL');
  }, 120_000);

  it('klaude deny --reason: the model is shown the reason as the tool result and the turn ends', async () => {
    const { home, svc, klaude } = setup();
    const id = await start(svc, home, `run: ${CMD}`);
    await waitingInSessions(klaude, id);
    const before = fx.mock.requests.length;
    const r = await klaude(['deny', id.slice(-8), '--reason', 'no python today, use node']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('denied');
    const s = await finished(svc, id);
    expect(s.status).toBe('done');
    const req = await fx.mock.waitForRequest((q) => q.index >= before && q.isToolResult, 10_000);
    expect(req.toolResults[0]).toMatchObject({ isError: true, content: 'no python today, use node' });
    expect(s.lastText).toBe('Tool said: error:no python today, use node');
    expect(events(svc, id).find((e) => e.type === 'approval_answer')).toMatchObject({
      behavior: 'deny',
      message: 'no python today, use node',
    });
    // The readable log says what was asked and how it was answered, with the real id in the hint.
    const log = (await klaude(['logs', id.slice(-8)])).stdout;
    expect(log).toMatch(
      new RegExp(`\\? needs approval \\d+: Bash: python3 -c "print\\(6\\*7\\)" — \`klaude approve ${id.slice(-8)}\``),
    );
    expect(log).toMatch(/✗ denied by person at \/dev\/pts\/\d+: no python today, use node/);
  }, 120_000);

  it('approve --always says where the rule goes, claude writes it, and the same call is not asked again', async () => {
    const { home, svc, klaude } = setup();
    const settings = join(home.projectDir, '.claude', 'settings.local.json');
    const id = await start(svc, home, `run: ${CMD}`);
    await waitingInSessions(klaude, id);
    expect(existsSync(settings)).toBe(false);
    const r = await klaude(['approve', id.slice(-8), '--always']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(`allow always: the rule Bash(${CMD}) goes into ${settings}`);
    expect((await finished(svc, id)).status).toBe('done');
    expect(JSON.parse(readFileSync(settings, 'utf8')).permissions.allow).toEqual(['Bash(python3 -c "print\\(6*7\\)")']);
    expect(events(svc, id).find((e) => e.type === 'approval_answer')).toMatchObject({
      behavior: 'allow',
      always: true,
    });

    const second = await start(svc, home, `run: ${CMD}`);
    const s2 = await finished(svc, second);
    expect(s2).toMatchObject({ status: 'done', lastText: 'Tool said: ok:42' });
    expect(events(svc, second).some((e) => e.type === 'approval_request')).toBe(false);
  }, 150_000);

  it('the parent Claude gets [NEEDS APPROVAL] through PostToolUse; with approvals: person Claude may not answer', async () => {
    const { home, svc, klaude } = setup();
    const parent = createSession(svc.db, { projectId: svc.projectHash, type: 'tui', status: 'idle' });
    const id = await start(svc, home, `run: ${CMD}`, parent.id);
    await waitingInSessions(klaude, id);
    const hookEnv = { ...home.env, KLAUDE_SESSION_ID: parent.id, KLAUDE_PROJECT_HASH: svc.projectHash };
    const payload = JSON.stringify({
      session_id: 'c0ffee00-0000-4000-8000-000000000001',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
    });
    const hook = await runProcess(process.execPath, [join(REPO_ROOT, 'dist', 'hook.cjs'), 'post-tool-use'], {
      env: hookEnv,
      cwd: home.projectDir,
      input: payload,
      timeoutMs: 15_000,
    });
    const ctx = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx).toContain(`[NEEDS APPROVAL] ${id.slice(-8)} Bash: ${CMD}`);
    expect(ctx).toContain('agents.approvals: person');

    // Claude's Bash tool (CLAUDECODE=1) is refused; the request stays pending.
    const refused = await klaude(['approve', id.slice(-8)], { CLAUDECODE: '1' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E_APPROVAL_BY_PERSON');
    expect(getSession(svc.db, id)!.status).toBe('waiting');
    expect((await klaude(['deny', id.slice(-8)])).code).toBe(0);
    expect((await finished(svc, id)).status).toBe('done');
  }, 120_000);

  it('interrupt while waiting ends the turn and withdraws the request; a runtime killed while waiting makes approve fail cleanly', async () => {
    const { home, svc, klaude } = setup('agents:\n  recover: off\n');
    const id = await start(svc, home, `run: ${CMD}`);
    await waitingInSessions(klaude, id);
    const r = await klaude(['interrupt', id.slice(-8)]);
    expect(r.code).toBe(0);
    expect((await finished(svc, id)).status).toBe('interrupted');
    expect(approvalsOf(svc.db, id).map((a) => a.answer)).toEqual(['cancelled']);
    expect((await klaude(['sessions'])).stdout).not.toContain('needs approval');

    const dead = await start(svc, home, `run: ${CMD}`);
    await waitingInSessions(klaude, dead);
    const { pid } = svc.db.sqlite
      .prepare("SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime' AND exited_at IS NULL")
      .get(dead) as { pid: number };
    process.kill(-pid, 'SIGKILL');
    expect(await waitForPidExit(pid, 10_000)).toBe(true);
    // Noticed at once (the runtime's death notice): the run is recorded, its request withdrawn.
    await until('the dead run recorded', () => getSession(svc.db, dead)!.status === 'interrupted', 10_000);
    expect(approvalsOf(svc.db, dead).map((a) => a.answer)).toEqual(['cancelled']);
    const late = await klaude(['approve', dead.slice(-8)]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('E_NO_PENDING_APPROVAL');
    expect(getSession(svc.db, dead)!.error).toContain('died before the run ended');
  }, 150_000);

  it("an agent's `env -u CLAUDECODE klaude approve` of a sibling is refused by the runtime; the request stays pending", async () => {
    // Unsandboxed: this is the answerer, the second line (a sandboxed agent's klaude has no approve:
    // test/e2e/sandbox-escapes.test.ts).
    const { home, svc, klaude } = setup('agents:\n  sandbox: off\n  allowedTools:\n    - "Bash(env:*)"\n');
    const sibling = await start(svc, home, `run: ${CMD}`);
    await waitingInSessions(klaude, sibling);
    const forge = `env -u CLAUDECODE ${process.execPath} ${KLAUDE_CLI} approve ${sibling.slice(-8)} --always`;
    const forger = await start(svc, home, `run: ${forge}`);
    const f = await finished(svc, forger);
    expect(f.lastText).toContain('Tool said: error:');
    expect(f.lastText).toContain('E_APPROVAL_BY_PERSON');
    expect(f.lastText).toContain('sent from inside an agent');
    expect(getSession(svc.db, sibling)!.status).toBe('waiting');
    expect(approvalsOf(svc.db, sibling).map((a) => a.answer)).toEqual([null]);
    expect(existsSync(join(home.projectDir, '.claude', 'settings.local.json'))).toBe(false);
    // The person's answer from a terminal of their own still counts.
    expect((await klaude(['deny', sibling.slice(-8)])).code).toBe(0);
    expect((await finished(svc, sibling)).status).toBe('done');
  }, 150_000);

  it('agents.approvals: parent lets Claude answer; approvalTimeoutSeconds denies an unanswered request', async () => {
    const { home, svc, klaude } = setup('agents:\n  approvals: parent\n  approvalTimeoutSeconds: 2\n');
    const id = await start(svc, home, `run: ${CMD}`);
    // A parent Claude blocked in `klaude wait` is let go to answer (exit 3), the request named.
    const w = await klaude(['wait', id.slice(-8)], { CLAUDECODE: '1' });
    expect(w.code).toBe(3);
    expect(w.stderr).toContain(`needs approval`);
    expect(w.stderr).toContain(`Bash: ${CMD} — \`klaude approve ${id.slice(-8)}\``);
    expect(w.stdout).toContain(`waiting for your answer: ${id.slice(-8)}`);
    await waitingInSessions(klaude, id);
    // Not from a terminal (as from Claude's Bash tool): with `parent`, accepted and recorded as what it was.
    const ok = await runKlaude(['approve', id.slice(-8)], {
      env: { ...home.env, CLAUDECODE: '1' },
      cwd: home.projectDir,
      timeoutMs: 60_000,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect((await finished(svc, id)).status).toBe('done');
    expect(events(svc, id).find((e) => e.type === 'approval_answer')).toMatchObject({
      behavior: 'allow',
      by: expect.stringMatching(/^process \d+/),
    });

    const late = await start(svc, home, 'run: python3 -c "print(1+1)"');
    const s = await finished(svc, late);
    expect(s.lastText).toMatch(/^Tool said: error:Nobody answered this permission request within 2 s/);
    expect(events(svc, late).find((e) => e.type === 'approval_answer')).toMatchObject({
      behavior: 'deny',
      by: 'timeout',
    });
  }, 150_000);
});
