// The agent channel without a sandbox around it (docs/sandbox.md, "The agent's klaude"): the real
// client (dist/agent-client.cjs) against the runtime's server (src/runtime/agent-channel.ts), in a
// temp home. What an agent can do to the directory it owns — plant links, write a request that is no
// file, send a person's command, walk away mid-command — changes nothing outside it.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentChannel } from '../../src/runtime/agent-channel.js';
import { channelPaths, SCOPE_ENV } from '../../src/sandbox/channel-paths.js';
import { nullLogger } from '../../src/lib/logger.js';
import { KLAUDE_CLI, REPO_ROOT } from '../support/klaude-bin.js';
import { runProcess } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

const CLIENT = join(REPO_ROOT, 'dist', 'agent-client.cjs');
let home: TempHome;
let channel: AgentChannel;
let io: string;

beforeEach(() => {
  home = makeTempHome({ prefix: 'klaude-channel-' });
  const paths = channelPaths(join(home.klaudeHome, 'run'), 'h'.repeat(24), '01AGENT00000000000000000000');
  io = paths.io;
  channel = new AgentChannel({
    paths,
    inv: { node: process.execPath, cli: KLAUDE_CLI },
    env: { ...home.env, [SCOPE_ENV]: '01AGENT00000000000000000000' },
    parentAnswers: false,
    trees: [home.projectDir],
    cwd: home.projectDir,
    log: nullLogger,
  });
  channel.open();
});

afterEach(() => {
  channel.close();
  home.cleanup();
});

/** `klaude …` as a sandboxed agent runs it: its channel's shim. */
const agentKlaude = (args: string[], env: Record<string, string> = {}) =>
  runProcess(join(io, '..', 'bin', 'klaude'), args, {
    env: { ...home.env, ...env },
    cwd: home.projectDir,
    timeoutMs: 30_000,
  });

describe('the agent channel', () => {
  it("passes an agent's command and its exit code, refuses the person's by name", async () => {
    const v = await agentKlaude(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const help = await agentKlaude(['--help']);
    expect(help.stdout).toContain('klaude start');
    expect(help.stdout).not.toContain('klaude approve');
    const refused = await agentKlaude(['approve', 'ABCD']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "klaude: `klaude approve` is not an agent's command [E_AGENT_CHANNEL] — hint: an agent's klaude has start, message, wait, watch, logs, sessions, status, checkout, interrupt, diff, agents; the person's commands (approve, deny, budget, merge, …) are theirs to run\n",
    );
    for (const cmd of [['__runtime', 'X'], ['hook', 'stop'], ['web'], ['merge', 'ABCD'], ['budget', 'ABCD', '5']]) {
      const r = await agentKlaude(cmd);
      expect(r.code, cmd.join(' ')).not.toBe(0);
      expect(r.stderr, cmd.join(' ')).toContain('E_AGENT_CHANNEL');
    }
    // A session that is not the agent's (here: none of its own exist) is refused by the scoped klaude.
    const other = await agentKlaude(['logs', 'ZZZZ']);
    expect(other.code).not.toBe(0);
  }, 60_000);

  it('follows no link it finds, reads no request that is not a file, and leaves nothing behind', async () => {
    const victim = join(home.root, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    const secret = join(home.root, 'secret.json');
    writeFileSync(secret, JSON.stringify({ argv: ['--version'], cwd: home.projectDir, env: {} }));
    // An output "FIFO" that is a link to the victim, with a real request.
    symlinkSync(victim, join(io, 'aaaaaaaa.out'));
    execFileSync('mkfifo', [join(io, 'aaaaaaaa.in')]);
    writeFileSync(join(io, 'aaaaaaaa.req'), JSON.stringify({ argv: ['--version'], cwd: home.projectDir, env: {} }));
    // A request that is a link to a file elsewhere.
    symlinkSync(secret, join(io, 'bbbbbbbb.req'));
    // A request that is a directory.
    mkdirSync(join(io, 'cccccccc.req'));
    // The channel still answers (the server took the requests above first: one watch, in order).
    const v = await agentKlaude(['--version']);
    expect(v.code).toBe(0);
    await until('the planted request is taken', () => !existsSync(join(io, 'aaaaaaaa.req')));
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(existsSync(secret)).toBe(true);
    expect(channel.busy).toBe(0);
  }, 60_000);

  it('ends the command when its client goes away (Ctrl-C, the Bash tool timing out)', async () => {
    // `watch` with no session runs until stopped.
    const client = spawn(process.execPath, [CLIENT, 'watch'], {
      env: { ...home.env, KLAUDE_CHANNEL: io },
      cwd: home.projectDir,
      stdio: 'ignore',
    });
    await until('the command runs', () => channel.busy === 1, 20_000);
    client.kill('SIGKILL');
    await until('the command is ended', () => channel.busy === 0, 20_000);
  }, 60_000);
});
