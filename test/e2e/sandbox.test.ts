// Agents in Claude Code's sandbox (docs/sandbox.md), with the real claude and the stand-in,
// bubblewrap and socat installed: a sandboxed agent starts, waits for and messages its own
// sub-agents through its channel, and sees only its own subtree; a bypassPermissions agent edits and
// commits in its worktree without a prompt; a blocked write shows in the log as blocked, and a host
// outside the allowed ones is a permission request; `agents.sandbox: on` without an engine fails
// with the fix, `auto` says once that agents run unsandboxed; bypass without a sandbox is refused
// unless the person says so.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../support/mock-anthropic.js';
import { until } from '../support/until.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

/** The agent's working directory, as claude tells the model. */
const cwdOf = (r: RecordedRequest): string =>
  /Primary working directory: ([^\s\\"]+)/.exec(JSON.stringify(r.body))![1]!;

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult) {
      const out = r.toolResults.map((t) => t.content).join('\n');
      if (out.includes('File created successfully'))
        return {
          bash: {
            // (`git -c …` would be asked: claude treats a config override as a risk of its own)
            command: 'git add written.txt && git commit -qm "agent edit" && echo committed',
          },
        };
      return { text: `Tool said:\n${out}` };
    }
    if (r.prompt.startsWith('run: ')) return { bash: { command: r.prompt.slice(5), description: 'run' } };
    if (r.prompt.includes('CHILD-TASK')) return { text: 'child answer one' };
    if (r.prompt.includes('FOLLOW-UP')) return { text: 'child answer two' };
    if (r.prompt === 'write-task')
      return {
        toolUse: { name: 'Write', input: { file_path: join(cwdOf(r), 'written.txt'), content: 'by the agent\n' } },
      };
    return { text: `Reply to: ${r.prompt}` };
  },
});

function define(home: AgentHome, name: string, front: string): void {
  mkdirSync(join(home.projectDir, '.claude', 'agents'), { recursive: true });
  writeFileSync(join(home.projectDir, '.claude', 'agents', `${name}.md`), `---\nname: ${name}\n${front}---\nDo it.\n`);
}

async function startJson(home: AgentHome, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await home.k(['start', ...args, '--json'], { env });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
}

function row(home: AgentHome, id: string): { status: string; parent_id: string | null; metadata: string } {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db.prepare('SELECT status, parent_id, metadata FROM sessions WHERE id = ?').get(id) as {
      status: string;
      parent_id: string | null;
      metadata: string;
    };
  } finally {
    db.close();
  }
}

const sandboxOf = (home: AgentHome, id: string): unknown =>
  (JSON.parse(row(home, id).metadata) as { sandbox?: unknown }).sandbox;

function approvalCount(home: AgentHome, id: string): number {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM approvals WHERE session_id = ?').get(id) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The first tool result's output in an agent's log. */
async function toolOutput(home: AgentHome, id: string): Promise<string> {
  const raw = await home.k(['logs', '--raw', id]);
  return raw.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; output?: string })
    .find((e) => e.type === 'tool_result')!.output!;
}

/** PATH as it is, minus bubblewrap and socat: every other program linked into one directory. */
function pathWithoutEngine(root: string): string {
  const dir = join(root, 'no-sandbox-bin');
  mkdirSync(dir, { recursive: true });
  const seen = new Set(['bwrap', 'socat']);
  for (const d of (process.env.PATH ?? '').split(':')) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (seen.has(n)) continue;
      seen.add(n);
      symlinkSync(join(d, n), join(dir, n));
    }
  }
  return dir;
}

describe("a sandboxed agent's own klaude", () => {
  let home: AgentHome;
  beforeAll(() => {
    home = fx.home({ timeoutMs: 150_000 });
    define(home, 'lead', 'permissionMode: acceptEdits\n');
  });

  it('starts, waits for and messages its sub-agents, and sees only its own subtree', async () => {
    const outsider = await startJson(home, ['general', 'an outsider']);
    writeFileSync(
      join(home.projectDir, 'lead.sh'),
      [
        `c=$(klaude start general "CHILD-TASK" -d --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sessions"][0]["id"])')`,
        'echo "child $c"',
        'klaude wait "$c"; echo "wait rc $?"',
        'klaude message "$c" "FOLLOW-UP" -f; echo "message rc $?"',
        'klaude sessions --json > tree.json; echo "sessions rc $?"',
        `klaude logs ${outsider.slice(-8)} 2>&1; echo "outsider rc $?"`,
        'klaude start general "x" --no-sandbox -d 2>&1; echo "unsandboxed child rc $?"',
        'echo x > "$HOME/nope.txt"',
      ].join('\n'),
    );
    const lead = await startJson(home, ['lead', 'run: bash lead.sh']);
    const wait = await home.k(['wait', lead.slice(-8), '--timeout', '140']);
    expect(wait.code, wait.stdout + wait.stderr).toBe(0);
    const out = await toolOutput(home, lead);

    const child = /child (\w{26})/.exec(out)![1]!;
    expect(out).toContain('child answer one');
    expect(out).toContain('wait rc 0');
    expect(out).toContain('child answer two');
    expect(out).toContain('message rc 0');
    // Its sub-agent is its child, and sandboxed like it.
    expect(row(home, child).parent_id).toBe(lead);
    expect(sandboxOf(home, child)).toMatchObject({ state: 'sandboxed' });
    // Its listing is its own subtree: itself and its child, not the outsider.
    const tree = JSON.parse(readFileSync(join(home.projectDir, 'tree.json'), 'utf8')) as {
      id: string;
      children: { id: string }[];
    }[];
    expect(tree.map((t) => t.id)).toEqual([lead]);
    expect(tree[0]!.children.map((c) => c.id)).toEqual([child]);
    expect(out).toMatch(/E_AGENT_CHANNEL.*\n?.*outsider rc 1/);
    expect(out).toContain('sub-agents are sandboxed too');
    expect(out).toContain('unsandboxed child rc 1');

    // The blocked write is in its log as such.
    const logs = await home.k(['logs', lead]);
    expect(logs.stdout).toMatch(/⊘ blocked by the sandbox: .*nope\.txt: Read-only file system/);
    // `sessions -v` says where each runs.
    const v = await home.k(['sessions', '-v']);
    expect(v.stdout).toContain('sandboxed');
    expect(v.stdout).not.toContain('unsandboxed');
  }, 200_000);

  it('a host outside the allowed ones is a permission request: the agent needs you', async () => {
    const id = await startJson(home, ['lead', 'run: curl -s -m 20 -o /dev/null http://example.com/']);
    try {
      await until('it asks for the host', () => row(home, id).status === 'waiting', 60_000);
    } catch (e) {
      // What the agent did instead (it once never asked, under the whole suite's load).
      const logs = await home.k(['logs', id]);
      throw new Error(
        `${(e as Error).message}; status ${row(home, id).status}; its log:\n${logs.stdout}${logs.stderr}`,
      );
    }
    const json = JSON.parse((await home.k(['sessions', '--json'])).stdout) as {
      id: string;
      approval: { tool: string; summary: string } | null;
      children: unknown[];
    }[];
    const mine = json.find((s) => s.id === id)!;
    expect(mine.approval).toMatchObject({ tool: 'SandboxNetworkAccess', summary: 'example.com' });
  }, 120_000);
});

describe('unattended in the sandbox', () => {
  it('a bypassPermissions agent edits and commits in its worktree without a prompt', async () => {
    const home = fx.home({ timeoutMs: 150_000 });
    define(home, 'fixer', 'permissionMode: bypassPermissions\nworktree: true\n');
    const g = (...a: string[]) => execFileSync('git', a, { cwd: home.projectDir, env: home.env }).toString();
    g('init', '-q');
    g('config', 'user.email', 'a@b');
    g('config', 'user.name', 'person');
    g('commit', '-q', '--allow-empty', '-m', 'base');
    const id = await startJson(home, ['fixer', 'write-task']);
    const wait = await home.k(['wait', id.slice(-8), '--timeout', '140']);
    expect(wait.code, wait.stdout + wait.stderr).toBe(0);
    expect(approvalCount(home, id)).toBe(0);
    expect(sandboxOf(home, id)).toMatchObject({ state: 'sandboxed' });
    const logs = (await home.k(['logs', id])).stdout;
    expect(logs).toContain('committed');
    const diff = await home.k(['diff', id, '--stat']);
    expect(diff.stdout).toContain('written.txt');
    // The person's tree is untouched.
    expect(readdirSync(home.projectDir)).not.toContain('written.txt');
  }, 200_000);
});

describe('without an engine', () => {
  it('agents.sandbox: on fails with the fix; auto says once that agents run unsandboxed; bypass needs the flag', async () => {
    const home = fx.home({ timeoutMs: 60_000 });
    define(home, 'yolo', 'permissionMode: bypassPermissions\n');
    const env = { PATH: pathWithoutEngine(home.root) };

    const on = await home.k(['start', 'general', 'hello', '--sandbox', '-d'], { env });
    expect(on.code).toBe(1);
    expect(on.stderr.trim().split('\n')).toHaveLength(1);
    expect(on.stderr).toContain(
      'the sandbox is required (--sandbox) but bubblewrap (bwrap) and socat are not installed',
    );
    expect(on.stderr).toContain('[E_SANDBOX_UNAVAILABLE] — hint: apt install bubblewrap socat');
    writeFileSync(
      join(home.klaudeHome, 'config.yaml'),
      `${readFileSync(join(home.klaudeHome, 'config.yaml'), 'utf8')}agents:\n  sandbox: on\n`,
    );
    const onConfig = await home.k(['start', 'general', 'hello', '-d'], { env });
    expect(onConfig.stderr).toContain('the sandbox is required (agents.sandbox: on)');

    const first = await home.k(['start', 'general', 'hello', '--no-sandbox', '-d'], { env });
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(
      join(home.klaudeHome, 'config.yaml'),
      readFileSync(join(home.klaudeHome, 'config.yaml'), 'utf8').replace('sandbox: on', 'sandbox: auto'),
    );
    const a = await home.k(['start', 'general', 'hello', '-d'], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toContain('agents run unsandboxed here: bubblewrap (bwrap) and socat are not installed');
    const b = await home.k(['start', 'general', 'hello', '-d'], { env });
    expect(b.stderr).not.toContain('unsandboxed here');
    const v = await home.k(['sessions', '-v'], { env: { ...env, COLUMNS: '300' } });
    expect(v.stdout).toContain('unsandboxed: bubblewrap (bwrap) and socat are not installed');
    expect(v.stdout).toContain('unsandboxed: --no-sandbox');

    const bypass = await home.k(['start', 'yolo', 'hello', '-d'], { env });
    expect(bypass.code).toBe(1);
    expect(bypass.stderr).toContain('[E_UNSANDBOXED_BYPASS]');
    const meant = await home.k(['start', 'yolo', 'hello', '-d', '--bypass-without-sandbox'], { env });
    expect(meant.code, meant.stderr).toBe(0);
  }, 120_000);
});
