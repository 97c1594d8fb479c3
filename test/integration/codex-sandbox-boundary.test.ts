// A codex agent in klaude's sandbox, with the real codex (devDependency @openai/codex 0.169.0)
// against the Responses API stand-in and the machine's bubblewrap: its shell commands run in
// codex's own sandbox under klaude's boundary (adapters/codex/sandbox-profile.ts). From a command
// of the agent: klaude's home, DB and web token are not there, nothing outside its tree is
// writable (not $HOME, not the temp dir), its tree is, and its own `klaude` reaches klaude through
// the agent's channel (its sessions, nothing of the person's). A worktree agent commits in its own
// worktree, which lives inside klaude's hidden home.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import { harness, idFrom } from '../support/runtime-harness.js';
import { livingMentioning } from '../support/process-state.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

/** codex's sandbox needs user namespaces; bubblewrap on PATH (or codex's own) runs it. */
const canSandbox =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-U', '-r', 'true']).status === 0 &&
  spawnSync('bwrap', ['--version']).status === 0;

let mock: MockOpenAi;
let home: TempHome;
const h = harness(() => home);

beforeAll(async () => {
  mock = await startMockOpenAi({
    responder: (r) => {
      if (r.isToolResult) return { text: `Tool said: ${r.toolOutputs.map((t) => t.output).join('')}` };
      if (r.prompt.startsWith('run ')) return { text: 'Running.', shell: { command: r.prompt.slice(4) } };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome();
  prepareCliHomes(home, { openai: mock });
  // A web sign-in's token, as `klaude web` leaves it.
  mkdirSync(join(home.klaudeHome, 'web'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home.klaudeHome, 'web', 'token'), 'web-token-secret-123\n', { mode: 0o600 });
});

afterAll(async () => {
  h.killRuntimes();
  await mock?.close();
  home?.cleanup();
});

/** One line per probe: `[name:<exit code>]` after what the command printed. */
const probe = (name: string, cmd: string): string => `${cmd} 2>&1; echo "[${name}:$?]"`;

/** The agent's command output (its final text quotes it) and its exit codes by name. */
function results(out: string): { text: string; code: (name: string) => number } {
  return {
    text: out,
    code: (name) => {
      const m = new RegExp(`\\[${name}:(\\d+)\\]`).exec(out);
      if (!m) throw new Error(`no [${name}] in ${out}`);
      return Number(m[1]);
    },
  };
}

/** A session's row anywhere in `sessions --json` (sub-agents are listed under their parent). */
function findRow(v: unknown, shortId: string): unknown {
  if (Array.isArray(v)) return v.map((x) => findRow(x, shortId)).find((x) => x !== undefined);
  if (v && typeof v === 'object') {
    if ((v as { shortId?: string }).shortId === shortId) return v;
    return findRow(Object.values(v), shortId);
  }
  return undefined;
}

describe.skipIf(!canSandbox)('a codex agent in the sandbox', () => {
  it("cannot read klaude's home, DB or web token nor write outside its tree; its klaude works through its channel", async () => {
    const kh = home.klaudeHome;
    const outsideHome = join(home.home, 'outside.txt');
    const outsideTmp = join(home.root, 'outside-tmp.txt');
    const cmd = [
      probe('token', `cat ${kh}/web/token`),
      probe('db', `head -c 16 ${kh}/sessions.db`),
      probe('ls', `ls ${kh}`),
      probe('home', `echo x > ${outsideHome}`),
      probe('tmp', `echo x > ${outsideTmp}`),
      probe('tree', 'echo inside > inside.txt'),
      probe('mktemp', 'mktemp'),
      probe('net', `exec 3<>/dev/tcp/127.0.0.1/${new URL(mock.url).port}`),
      probe('sessions', 'klaude sessions'),
      probe('approve', 'klaude approve 1'),
      probe('child', 'klaude start general "child hello" --runtime codex'),
    ].join('; ');
    const r = await h.klaude(['start', 'general', `run ${cmd}`, '--runtime', 'codex']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const id = idFrom(r.stdout);
    const out = results(r.stdout.slice(r.stdout.indexOf('final text:')));

    // codex told its model the boundary: klaude's home denied, the tree and the channel writable.
    const told = JSON.stringify(mock.mainRequests().find((q) => q.prompt.startsWith('run '))!.body.input);
    expect(told).toContain(`The active permission profile denies reading these paths/globs.`);
    expect(told).toContain(`- path \`${kh}\``);
    expect(told).toMatch(new RegExp(`The writable roots are [^\\n]*\`${home.projectDir}\``));
    expect(out.code('token')).not.toBe(0);
    expect(out.code('db')).not.toBe(0);
    expect(out.code('ls')).not.toBe(0);
    expect(out.text).not.toContain('web-token-secret-123');
    expect(out.text).not.toContain('SQLite format');
    expect(out.code('home')).not.toBe(0);
    expect(out.code('tmp')).not.toBe(0);
    expect(out.text).toContain('Read-only file system');
    expect(existsSync(outsideHome)).toBe(false);
    expect(existsSync(outsideTmp)).toBe(false);
    expect(out.code('tree')).toBe(0);
    expect(readFileSync(join(home.projectDir, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(out.code('mktemp')).toBe(0);
    // Its own klaude, through the channel: its own row, as klaude sees it from outside.
    expect(out.code('sessions')).toBe(0);
    expect(out.text).toMatch(new RegExp(`${id}\\s+running\\s+general\\s+codex`));
    expect(out.code('approve')).not.toBe(0);
    expect(out.text).toContain('`klaude approve` is not an agent');
    // No network for its commands: not even the model's stand-in on this machine's loopback.
    expect(out.code('net')).not.toBe(0);
    // A sub-agent started through the channel ran, sandboxed as its parent is.
    expect(out.code('child'), out.text).toBe(0);
    expect(out.text).toContain('Reply to: child hello');
    const child = /started (\w{8}) \(general, codex\)/.exec(out.text)![1]!;
    const listed = (await h.klaude(['sessions', '--json'])).stdout;
    expect(JSON.stringify(findRow(JSON.parse(listed), child))).toContain('"sandbox":"sandboxed"');

    // What the sandbox refused shows in its log as such.
    const l = await h.klaude(['logs', id]);
    expect(l.stdout).toContain(`⊘ blocked by the sandbox: ${outsideHome}: Read-only file system`);

    const v = await h.klaude(['sessions', '-v']);
    expect(v.stdout).toMatch(new RegExp(`${id}[\\s\\S]*sandboxed`));
    const j = JSON.parse((await h.klaude(['sessions', '--json'])).stdout);
    expect(j.find((s: { shortId: string }) => s.shortId === id).sandbox).toBe('sandboxed');
  });

  it("holds when codex's own config.toml sets a sandbox_mode (klaude's profile is what codex runs)", async () => {
    const config = join(home.env.CODEX_HOME!, 'config.toml');
    const before = readFileSync(config, 'utf8');
    writeFileSync(config, `sandbox_mode = "danger-full-access"\n${before}`);
    try {
      const outside = join(home.home, 'outside-2.txt');
      const cmd = [probe('token', `cat ${home.klaudeHome}/web/token`), probe('home', `echo x > ${outside}`)].join('; ');
      const r = await h.klaude(['start', 'general', `run ${cmd}`, '--runtime', 'codex']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = results(r.stdout.slice(r.stdout.indexOf('final text:')));
      expect(out.code('token')).not.toBe(0);
      expect(out.text).not.toContain('web-token-secret-123');
      expect(out.code('home')).not.toBe(0);
      expect(existsSync(outside)).toBe(false);
    } finally {
      writeFileSync(config, before);
    }
  });

  it("codex's own patch tool writes in the tree, not outside it nor into klaude's home", async () => {
    const patch = (file: string) =>
      `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n+patched\n*** End Patch\nEOF`;
    for (const file of [join(home.home, 'patched.txt'), join(home.klaudeHome, 'planted.txt')]) {
      const r = await h.klaude(['start', 'general', `run ${patch(file)}`, '--runtime', 'codex']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(existsSync(file), file).toBe(false);
      expect(r.stdout).toContain('patch rejected: writing outside of the project; rejected by user approval settings');
    }
    const inside = join(home.projectDir, 'patched-inside.txt');
    const r = await h.klaude(['start', 'general', `run ${patch(inside)}`, '--runtime', 'codex']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(inside, 'utf8')).toBe('patched\n');
  });

  it('in plan mode (a reviewer) it writes nothing of its tree, and its klaude still works', async () => {
    writeFileSync(join(home.klaudeHome, 'config.yaml'), 'agents:\n  permissionMode: plan\n');
    try {
      const cmd = [probe('tree', 'echo x > plan.txt'), probe('sessions', 'klaude sessions')].join('; ');
      const r = await h.klaude(['start', 'general', `run ${cmd}`, '--runtime', 'codex']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const out = results(r.stdout.slice(r.stdout.indexOf('final text:')));
      expect(out.code('tree')).not.toBe(0);
      expect(existsSync(join(home.projectDir, 'plan.txt'))).toBe(false);
      expect(out.code('sessions'), out.text).toBe(0);
      const told = JSON.stringify(mock.mainRequests().find((q) => q.prompt === `run ${cmd}`)!.body.input);
      // codex names the channel directory as the one writable root (it calls that `workspace-write`).
      expect(told).toContain(`The writable root is \`${home.klaudeHome}/run/`);
    } finally {
      writeFileSync(join(home.klaudeHome, 'config.yaml'), '');
    }
  });

  it('a worktree agent (its worktree inside the hidden home) writes and commits there, and nowhere else', async () => {
    const git = (...args: string[]) =>
      spawnSync('git', args, { cwd: home.projectDir, env: home.env, encoding: 'utf8' });
    // HEAD, not .git: codex may leave an empty `.git` in a tree without one (docs/cli-notes.md).
    if (!existsSync(join(home.projectDir, '.git', 'HEAD'))) {
      git('init', '-q', '-b', 'main');
      git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'base');
    }
    const cmd = [
      probe('write', 'echo wt > wt.txt'),
      probe('commit', 'git add wt.txt && git -c user.email=a@a -c user.name=a commit -q -m agent-commit'),
      probe('project', `echo x > ${home.projectDir}/from-worktree.txt`),
      probe('token', `cat ${home.klaudeHome}/web/token`),
    ].join('; ');
    const r = await h.klaude(['start', 'general', `run ${cmd}`, '--runtime', 'codex', '-w']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = results(r.stdout.slice(r.stdout.indexOf('final text:')));
    expect(out.code('write')).toBe(0);
    expect(out.code('commit'), out.text).toBe(0);
    expect(out.code('project')).not.toBe(0);
    expect(existsSync(join(home.projectDir, 'from-worktree.txt'))).toBe(false);
    expect(out.code('token')).not.toBe(0);
    expect(out.text).not.toContain('web-token-secret-123');
    const log = git('log', '--all', '--format=%s');
    expect(log.stdout).toContain('agent-commit');
  });

  it('leaves nothing running when its runtime is killed mid-command (codex starts its helpers in groups of their own)', async () => {
    const r = await h.klaude(['start', 'general', 'run sleep 120', '--runtime', 'codex', '-d']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The command runs in codex's sandbox: a bubblewrap of its own under codex.
    const sandboxed = () => livingMentioning('sleep 120').filter((p) => /^\d+: \S*bwrap /.test(p));
    await until('the command to run', () => sandboxed().length > 0, 60_000);
    h.killRuntimes(); // SIGKILL, each runtime's group: what is left is for their watchdogs to end
    await until('no process of this run to be left', () => livingMentioning(home.root).length === 0, 30_000).catch(
      () => {
        throw new Error(`left running:\n${livingMentioning(home.root).join('\n')}`);
      },
    );
  });
});
