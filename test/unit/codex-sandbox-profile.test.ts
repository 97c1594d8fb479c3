// klaude's boundary as codex's permission profile (src/adapters/codex/sandbox-profile.ts) and the
// command line a sandboxed codex agent is launched and checked with (src/adapters/codex/adapter.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCodexCommand, codexAdapter, configArgs } from '../../src/adapters/codex/adapter.js';
import {
  CODEX_CONFIG_KEY,
  codexConfigOf,
  codexFilesystem,
  codexSandboxLaunch,
} from '../../src/adapters/codex/sandbox-profile.js';
import { codexSandboxEngine } from '../../src/adapters/codex/sandbox.js';
import type { LaunchInput } from '../../src/adapters/runtime-adapter.js';
import { sandboxBoundary, type BoundaryInput } from '../../src/sandbox/boundary.js';
import { channelPaths } from '../../src/sandbox/channel-paths.js';
import { NODE_BIN } from '../support/cli-homes.js';

const HOME = '/home/me/.klaude';
const boundary = (o: Partial<BoundaryInput> = {}) =>
  sandboxBoundary({
    home: HOME,
    runDir: `${HOME}/run`,
    logsDir: null,
    projectRoot: '/home/me/code/app',
    cwd: '/home/me/code/app/src',
    tree: '/home/me/code/app',
    channel: channelPaths(`${HOME}/run`, 'h'.repeat(24), 'S'),
    codeDir: '/opt/klaude/dist',
    allowWrite: ['~/.cache/pip'],
    allowedDomains: ['*.npmjs.org'],
    modelUrl: null,
    permissionMode: 'acceptEdits',
    userHome: '/home/me',
    ...o,
  });
const ch = channelPaths(`${HOME}/run`, 'h'.repeat(24), 'S');

const dir = mkdtempSync(join(tmpdir(), 'klaude-codex-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input = (o: Partial<LaunchInput> = {}): LaunchInput => ({
  binary: join(NODE_BIN, 'codex'),
  cwd: '/home/me/code/app',
  nativeSessionId: null,
  resume: false,
  prompt: 'go',
  ...o,
});

describe("codex's profile of the boundary", () => {
  it('hides the home, writes the tree, allowWrite and the channel directory, reads the channel bin', () => {
    expect(codexFilesystem(boundary(), false)).toEqual({
      [HOME]: 'none',
      '/home/me/code/app': 'write',
      '/home/me/.cache/pip': 'write',
      [ch.dir]: 'write',
      [ch.bin]: 'read',
    });
  });

  it('a run directory and logs.dir outside the home are hidden too', () => {
    const fs = codexFilesystem(boundary({ runDir: '/tmp/klaude-0-ab', logsDir: '/var/log/k' }), false);
    expect(fs['/tmp/klaude-0-ab']).toBe('none');
    expect(fs['/var/log/k']).toBe('none');
  });

  it('plan mode (read-only): nothing written but the channel directory; a tree inside the home is readable', () => {
    const wt = `${HOME}/projects/abc/worktrees/xyz`;
    expect(codexFilesystem(boundary({ tree: wt, cwd: wt }), true)).toEqual({
      [HOME]: 'none',
      [wt]: 'read',
      [ch.dir]: 'write',
      [ch.bin]: 'read',
    });
    expect(codexFilesystem(boundary({ tree: wt, cwd: wt }), false)[wt]).toBe('write');
  });

  it('bypassPermissions runs as acceptEdits inside it (bypass would turn the sandbox off); plan stays read-only', () => {
    const b = boundary();
    const launch = codexSandboxLaunch(b, 'bypassPermissions');
    expect(launch.permissionMode).toBe('acceptEdits');
    const config = launch.settings[CODEX_CONFIG_KEY] as Record<string, unknown>;
    expect(config).toEqual({
      default_permissions: 'klaude',
      'permissions.klaude': { extends: ':read-only', filesystem: codexFilesystem(b, false) },
      'shell_environment_policy.set.TMPDIR': ch.dir,
      allow_login_shell: false,
    });
    const plan = codexSandboxLaunch(b, 'plan');
    expect(plan.permissionMode).toBe('plan');
    const planConfig = plan.settings[CODEX_CONFIG_KEY] as Record<string, { filesystem: Record<string, string> }>;
    expect(planConfig['permissions.klaude']!.filesystem['/home/me/code/app']).toBeUndefined();
  });
});

describe('a sandboxed codex launch', () => {
  const settings = JSON.stringify(codexSandboxLaunch(boundary(), 'acceptEdits').settings);

  it('passes the profile as -c overrides, and no sandbox_mode (codex would take it over the profile)', () => {
    const cmd = buildCodexCommand(input({ permissionMode: 'acceptEdits', settings }));
    expect(cmd.args.slice(0, 4)).toEqual(['exec', '--json', '--skip-git-repo-check', '-c']);
    expect(cmd.args).toContain('default_permissions="klaude"');
    expect(cmd.args).toContain(
      `permissions.klaude={ "extends" = ":read-only", "filesystem" = { "${HOME}" = "none", "/home/me/code/app" = "write", "/home/me/.cache/pip" = "write", "${ch.dir}" = "write", "${ch.bin}" = "read" } }`,
    );
    expect(cmd.args).toContain(`shell_environment_policy.set.TMPDIR="${ch.dir}"`);
    expect(cmd.args).toContain('allow_login_shell=false');
    expect(cmd.args.join(' ')).not.toContain('sandbox_mode');
    expect(cmd.args).not.toContain('--dangerously-bypass-approvals-and-sandbox');
    expect(cmd.args.slice(-2)).toEqual(['--', 'go']);
  });

  it('reads the overrides from the merged settings file of a worktree agent; none from other settings', () => {
    const file = join(dir, 'merged.json');
    writeFileSync(file, JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, ...JSON.parse(settings) }));
    expect(codexConfigOf(file)).toEqual(codexConfigOf(settings));
    expect(codexConfigOf('{"hooks":{}}')).toBeNull();
    expect(codexConfigOf(join(dir, 'missing.json'))).toBeNull();
    expect(codexConfigOf(null)).toBeNull();
    // Unsandboxed: the permission mode's sandbox as before.
    expect(buildCodexCommand(input({ permissionMode: 'acceptEdits' })).args).toContain(
      'sandbox_mode="workspace-write"',
    );
  });

  it.runIf(process.platform === 'linux')('is checked with the same profile around a no-op', () => {
    const check = codexAdapter.sandboxCheck!(input({ permissionMode: 'acceptEdits', settings }))!;
    const config = codexConfigOf(settings)!;
    expect(check.cmd.args).toEqual(['sandbox', ...configArgs(config), '--', 'true']);
    // bypassPermissions unsandboxed has no sandbox to check; sandboxed it has (it runs as acceptEdits).
    expect(codexAdapter.sandboxCheck!(input({ permissionMode: 'bypassPermissions' }))).toBeNull();
  });

  it('its engine: codex brings its own bubblewrap on Linux; Seatbelt on macOS; none elsewhere', () => {
    expect(codexSandboxEngine({}, 'linux')).toEqual({ engine: 'bubblewrap', missing: null, fix: null });
    expect(codexSandboxEngine({}, 'darwin').missing).toBeNull();
    expect(codexSandboxEngine({}, 'win32').missing).toMatch(/Linux and macOS only, not win32/);
  });
});
