// A `--worktree` agent and the project's untracked `.claude/settings.local.json`, with the real
// claude (`--permission-prompt-tool stdio`) against the stand-in: a call the project's local
// settings allow is not asked again in the worktree (whose checkout lacks the file), and
// `approve --always` writes the rule into the project's own file, not into the worktree (which
// prune deletes), so the next worktree agent is not asked either.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInTerminal } from '../support/terminal-run.js';
import { until } from '../support/until.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult)
      return {
        text: `Tool said: ${r.toolResults.map((t) => `${t.isError ? 'error' : 'ok'}:${t.content}`).join(' ')}`,
      };
    if (r.prompt.startsWith('run: ')) return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: '' };
    return { text: `Reply to: ${r.prompt}` };
  },
});
let home: AgentHome;
let localFile: string;

beforeAll(async () => {
  // A call left unanswered is denied after 20 s: a regression fails instead of hanging.
  home = fx.home({ config: 'agents:\n  approvalTimeoutSeconds: 20\n', timeoutMs: 120_000 });
  const p = home.projectDir;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], { cwd: p, env: home.env });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(p, '.gitignore'), '.claude/settings.local.json\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  mkdirSync(join(p, '.claude'), { recursive: true });
  localFile = join(p, '.claude', 'settings.local.json');
  writeFileSync(localFile, `${JSON.stringify({ permissions: { allow: ['Bash(python3 -c:*)'] } }, null, 2)}\n`);
});

const klaude = (args: string[]) => home.k(args);

async function startInWorktree(prompt: string, detached = false): Promise<{ id: string; out: string }> {
  const r = await klaude(['start', 'general', prompt, '--worktree', ...(detached ? ['-d'] : [])]);
  expect(r.code, r.stderr).toBe(0);
  return { id: /started (\w{8})/.exec(r.stdout)![1]!, out: r.stdout };
}

/** The agent's row and its pending permission request, read from the DB. */
function agent(short: string): { status: string; worktreePath: string; rule: string | null } {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT s.status, s.worktree_path AS worktreePath,
           (SELECT suggested_rule FROM approvals a WHERE a.session_id = s.id AND a.answer IS NULL) AS rule
         FROM sessions s WHERE s.id LIKE ?`,
      )
      .get(`%${short}`) as never;
  } finally {
    db.close();
  }
}

describe("worktree agents and the project's local settings", () => {
  it('a call the project allows is not asked in the worktree', async () => {
    const a = await startInWorktree('run: python3 -c "print(6*7)"');
    expect(a.out).toContain('Tool said: ok:42');
    expect(a.out).not.toContain('needs approval');
    // Nothing was written into the worktree's checkout.
    const wt = /in worktree (\S+) \(branch/.exec(a.out)![1]!;
    expect(existsSync(join(wt, '.claude', 'settings.local.json'))).toBe(false);
  }, 120_000);

  it("approve --always from a worktree agent writes the rule into the project's own file", async () => {
    const cmd = 'node -e "console.log(6*7)"';
    const b = await startInWorktree(`run: ${cmd}`, true);
    await until('the worktree agent asking', () => agent(b.id).rule !== null, 60_000);
    const rule = agent(b.id).rule!;
    expect(rule).toMatch(/^Bash\(node/);
    const ok = await runInTerminal(['approve', b.id, '--always'], { env: home.env, cwd: home.projectDir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.split('\n')[0]).toBe(`allow always: the rule ${rule} goes into ${localFile}`);
    const w = await klaude(['wait', b.id]);
    expect(w.code, w.stderr).toBe(0);
    const logs = await klaude(['logs', b.id]);
    expect(logs.stdout).toContain('Tool said: ok:42');

    const settings = JSON.parse(readFileSync(localFile, 'utf8'));
    // As claude writes it itself (test/e2e/approvals.test.ts): parentheses in the content escaped.
    expect(settings.permissions.allow).toEqual(['Bash(python3 -c:*)', 'Bash(node -e "console.log\\(6*7\\)")']);
    expect(statSync(localFile).mode & 0o777).toBe(0o644 & ~process.umask());
    const wt = agent(b.id).worktreePath;
    expect(existsSync(join(wt, '.claude', 'settings.local.json'))).toBe(false);
    expect(execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: wt, encoding: 'utf8' })).toBe('');

    // The next worktree agent gets the rule from the project's file and is not asked.
    const c = await startInWorktree(`run: ${cmd}`);
    expect(c.out).toContain('Tool said: ok:42');
    expect(c.out).not.toContain('needs approval');
  }, 180_000);
});
