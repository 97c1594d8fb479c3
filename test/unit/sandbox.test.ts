// The sandbox's pure parts (docs/sandbox.md): the boundary of an agent's commands, the settings
// claude gets from it, the mode a start decides, the doctor's line, and what a blocked command's
// output says.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeSandboxLaunch, claudeSandboxSettings } from '../../src/adapters/claude/sandbox-settings.js';
import type { RuntimeAdapter } from '../../src/adapters/runtime-adapter.js';
import { planSandbox } from '../../src/agent-ops/sandbox-plan.js';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { sandboxLabel } from '../../src/core/sandbox-state.js';
import type { SessionRow } from '../../src/db/repos/sessions.js';
import { checkSandbox } from '../../src/doctor/sandbox-check.js';
import { mergeSettings } from '../../src/hooks/settings.js';
import {
  modelHost,
  sandboxBoundary,
  workingTree,
  worktreeGitPaths,
  type BoundaryInput,
} from '../../src/sandbox/boundary.js';
import { channelPaths } from '../../src/sandbox/channel-paths.js';
import { claudeSandboxEngine } from '../../src/sandbox/engine.js';
import { sandboxBlocks } from '../../src/sandbox/violations.js';

const HOME = '/home/me/.klaude';
const input = (o: Partial<BoundaryInput> = {}): BoundaryInput => ({
  home: HOME,
  runDir: `${HOME}/run`,
  logsDir: null,
  projectRoot: '/home/me/code/app',
  cwd: '/home/me/code/app/src',
  tree: '/home/me/code/app',
  channel: channelPaths(`${HOME}/run`, 'h'.repeat(24), 'S'),
  codeDir: '/opt/klaude/dist',
  allowWrite: [],
  allowedDomains: [],
  modelUrl: null,
  permissionMode: 'default',
  userHome: '/home/me',
  ...o,
});

describe('the boundary', () => {
  it('writes: the working tree and the channel io; hidden: the home (and a run dir outside it); readable again: the channel', () => {
    const b = sandboxBoundary(input({ allowWrite: ['~/.cache/pip', 'build'] }));
    expect(b.write).toEqual(['/home/me/code/app', b.channel.io, '/home/me/.cache/pip', '/home/me/code/app/build']);
    expect(b.hidden).toEqual([HOME]);
    expect(b.readable).toEqual([b.channel.bin, b.channel.io]);
    expect(b.domains).toEqual(['api.anthropic.com']);
    expect(b.autoAllowCommands).toBe(false);
    const outside = sandboxBoundary(input({ runDir: '/tmp/klaude-0-abcdef12', logsDir: '/var/log/k' }));
    expect(outside.hidden).toEqual([HOME, '/tmp/klaude-0-abcdef12', '/var/log/k']);
  });

  it("a worktree inside the home is the agent's tree, readable and writable again", () => {
    const wt = `${HOME}/projects/abc/worktrees/xyz`;
    const b = sandboxBoundary(input({ tree: wt, cwd: wt, permissionMode: 'bypassPermissions' }));
    expect(b.write[0]).toBe(wt);
    expect(b.readable).toContain(wt);
    expect(b.autoAllowCommands).toBe(true);
  });

  it('the working tree: the git top level above the cwd (a worktree’s too), else the cwd; a worktree adds its git metadata', () => {
    const root = mkdtempSync(join(tmpdir(), 'klaude-tree-'));
    try {
      const repo = join(root, 'repo');
      mkdirSync(join(repo, '.git', 'worktrees', 'w1'), { recursive: true });
      mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
      const wt = join(root, 'wt');
      mkdirSync(join(wt, 'lib'), { recursive: true });
      writeFileSync(join(wt, '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'w1')}\n`);
      writeFileSync(join(repo, '.git', 'worktrees', 'w1', 'commondir'), '../..\n');
      mkdirSync(join(root, 'plain', 'x'), { recursive: true });
      expect(workingTree(join(repo, 'src', 'deep'))).toBe(repo);
      expect(workingTree(join(wt, 'lib'))).toBe(wt);
      expect(workingTree(join(root, 'plain', 'x'))).toBe(join(root, 'plain', 'x'));
      expect(worktreeGitPaths(repo)).toEqual([]);
      const g = join(repo, '.git');
      expect(worktreeGitPaths(wt)).toEqual([
        join(g, 'worktrees', 'w1'),
        join(g, 'objects'),
        join(g, 'refs', 'heads', 'klaude'),
        join(g, 'logs', 'refs', 'heads', 'klaude'),
      ]);
    } finally {
      rmSync(root, { recursive: true });
    }
  });

  it('the model endpoint is an allowed host unless it is a loopback one', () => {
    expect(modelHost(null)).toBe('api.anthropic.com');
    expect(modelHost('https://llm.corp.example:8443/v1')).toBe('llm.corp.example');
    for (const u of ['http://127.0.0.1:9', 'http://localhost:1', 'http://[::1]:3']) expect(modelHost(u)).toBeNull();
    expect(sandboxBoundary(input({ allowedDomains: ['*.npmjs.org'], modelUrl: 'http://127.0.0.1:9' })).domains).toEqual(
      ['*.npmjs.org'],
    );
  });
});

describe("claude's sandbox settings", () => {
  it('strict: enabled, no unsandboxed fallback, no start without it, no excluded commands; file tools denied klaude’s files', () => {
    const b = sandboxBoundary(input());
    const s = claudeSandboxSettings(b) as { sandbox: Record<string, unknown>; permissions: { deny: string[] } };
    expect(s.sandbox).toMatchObject({
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      autoAllowBashIfSandboxed: false,
      filesystem: { allowWrite: b.write, denyRead: [HOME], allowRead: b.readable },
      network: { allowedDomains: ['api.anthropic.com'] },
    });
    expect(s.sandbox).not.toHaveProperty('excludedCommands');
    expect(s.permissions.deny).toContain(`Read(/${HOME}/web/**)`);
    expect(s.permissions.deny).toContain(`Edit(/${HOME}/config.yaml)`);
    // Never the run directory: deny rules become denyWrite, which would close the channel.
    expect(s.permissions.deny.some((r) => r.includes('/run'))).toBe(false);
  });

  it('bypassPermissions runs as acceptEdits inside the sandbox; other modes as they are', () => {
    const b = sandboxBoundary(input({ permissionMode: 'bypassPermissions' }));
    expect(claudeSandboxLaunch(b, 'bypassPermissions').permissionMode).toBe('acceptEdits');
    expect(claudeSandboxLaunch(b, 'plan').permissionMode).toBe('plan');
  });

  it('merged over the project’s local settings, klaude’s sandbox wins and deny rules add up', () => {
    const local = {
      sandbox: { enabled: false },
      permissions: { allow: ['Bash(ls)'], deny: ['Read(.env)'] },
      env: { A: '1' },
    };
    const ours = { hooks: {}, sandbox: { enabled: true }, permissions: { deny: ['Read(//k/**)'] } };
    expect(mergeSettings(JSON.stringify(local), ours)).toEqual({
      sandbox: { enabled: true },
      permissions: { allow: ['Bash(ls)'], deny: ['Read(.env)', 'Read(//k/**)'] },
      env: { A: '1' },
      hooks: {},
    });
  });
});

describe('the engine', () => {
  it('on Linux: bwrap and socat on PATH; elsewhere: what the platform has', () => {
    const dir = mkdtempSync(join(tmpdir(), 'klaude-engine-'));
    try {
      expect(claudeSandboxEngine({ PATH: dir }, 'linux').missing).toBe(
        'bubblewrap (bwrap) and socat are not installed',
      );
      expect(claudeSandboxEngine({ PATH: dir }, 'linux').fix).toMatch(/^apt install bubblewrap socat/);
      expect(claudeSandboxEngine({}, 'darwin', () => true)).toEqual({ engine: 'Seatbelt', missing: null, fix: null });
      expect(claudeSandboxEngine({}, 'win32').missing).toBe('Claude Code has no sandbox on win32');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('the mode of a start', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const ctx = (o: { missing?: string | null; supported?: boolean; config?: Partial<Config>; parent?: unknown }) => {
    const home = mkdtempSync(join(tmpdir(), 'klaude-plan-'));
    dirs.push(home);
    const adapter = {
      name: 'claude',
      ...(o.supported === false
        ? {}
        : { sandbox: { check: () => ({ engine: 'bubblewrap', missing: o.missing ?? null, fix: 'apt install x' }) } }),
    } as unknown as RuntimeAdapter;
    const parent = o.parent ? ({ metadata: { sandbox: o.parent } } as unknown as SessionRow) : null;
    return { home, config: { ...defaultConfig(), ...o.config }, env: {}, runtime: 'codex', adapter, parent };
  };
  const ask = (o: Partial<Parameters<typeof planSandbox>[1]> = {}) => ({
    definition: null,
    permissionMode: 'default',
    ...o,
  });

  it('auto: sandboxed with the engine; without it unsandboxed, said once', () => {
    expect(planSandbox(ctx({}), ask(), [])).toEqual({ state: 'sandboxed', engine: 'bubblewrap' });
    const c = ctx({ missing: 'bwrap is not installed' });
    const notes: string[] = [];
    expect(planSandbox(c, ask(), notes)).toEqual({ state: 'unsandboxed', why: 'bwrap is not installed' });
    planSandbox(c, ask(), notes);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('agents run unsandboxed here: bwrap is not installed (apt install x sandboxes them)');
  });

  it('on without the engine fails with the fix; off is unsandboxed; flag over definition over config', () => {
    expect(() => planSandbox(ctx({ missing: 'bwrap is not installed' }), ask({ flag: 'on' }), [])).toThrow(
      'the sandbox is required (--sandbox) but bwrap is not installed',
    );
    expect(planSandbox(ctx({ config: { 'agents.sandbox': 'on' } }), ask({ definition: 'off' }), [])).toEqual({
      state: 'unsandboxed',
      why: 'sandbox: off in its definition',
    });
    expect(planSandbox(ctx({}), ask({ flag: 'off', definition: 'on' }), [])).toEqual({
      state: 'unsandboxed',
      why: '--no-sandbox',
    });
  });

  it("a sandboxed parent's sub-agents are sandboxed: off is refused, auto becomes on", () => {
    const parent = { state: 'sandboxed' };
    expect(() => planSandbox(ctx({ parent }), ask({ flag: 'off' }), [])).toThrow('sandboxed too');
    expect(() => planSandbox(ctx({ parent, missing: 'gone' }), ask(), [])).toThrow('its parent is sandboxed');
  });

  it('a CLI without a sandbox klaude drives: unsandboxed (auto), refused (on)', () => {
    expect(planSandbox(ctx({ supported: false }), ask(), [])).toEqual({
      state: 'unsandboxed',
      why: 'klaude drives no sandbox of codex yet',
    });
    expect(() => planSandbox(ctx({ supported: false }), ask({ flag: 'on' }), [])).toThrow(
      'codex agents cannot be sandboxed',
    );
  });

  it('bypassPermissions unsandboxed only when the person says so', () => {
    const c = ctx({ missing: 'gone' });
    expect(() => planSandbox(c, ask({ permissionMode: 'bypassPermissions' }), [])).toThrow(
      /E_UNSANDBOXED_BYPASS|whole account/,
    );
    expect(planSandbox(c, ask({ permissionMode: 'bypassPermissions', bypassWithoutSandbox: true }), []).state).toBe(
      'unsandboxed',
    );
    const allowed = ctx({ missing: 'gone', config: { 'agents.bypassWithoutSandbox': true } });
    expect(planSandbox(allowed, ask({ permissionMode: 'bypassPermissions' }), []).state).toBe('unsandboxed');
    expect(planSandbox(ctx({}), ask({ permissionMode: 'bypassPermissions' }), []).state).toBe('sandboxed');
  });

  it('labels: sandboxed, unsandboxed: why', () => {
    expect(sandboxLabel({ state: 'sandboxed', engine: 'bubblewrap' })).toBe('sandboxed');
    expect(sandboxLabel({ state: 'unsandboxed', why: 'x' })).toBe('unsandboxed: x');
  });
});

describe('the doctor', () => {
  const engine = { engine: 'bubblewrap', missing: null, fix: 'apt install bubblewrap socat' };
  const cfg = (mode: 'auto' | 'on' | 'off'): Config => ({ ...defaultConfig(), 'agents.sandbox': mode });
  it('✔ with a working engine, ! without one (auto) or when off, ✗ when on needs it or bwrap cannot start', () => {
    expect(checkSandbox(cfg('auto'), {}, engine, () => null).level).toBe('ok');
    expect(checkSandbox(cfg('off'), {}, engine, () => null)).toMatchObject({
      level: 'warn',
      fix: 'set agents.sandbox: auto to sandbox them',
    });
    const missing = { ...engine, missing: 'socat is not installed' };
    expect(checkSandbox(cfg('auto'), {}, missing, () => null)).toMatchObject({
      level: 'warn',
      detail: 'socat is not installed: agents run unsandboxed',
      fix: 'apt install bubblewrap socat',
    });
    expect(checkSandbox(cfg('on'), {}, missing, () => null).level).toBe('error');
    expect(checkSandbox(cfg('auto'), {}, engine, () => 'setting up uid map: Permission denied')).toMatchObject({
      level: 'error',
      detail: 'bubblewrap is installed but cannot start a sandbox: setting up uid map: Permission denied',
    });
  });
});

describe('what a sandbox blocked', () => {
  it('read-only writes, refused syscalls and 2.1.332’s violation block; nothing for plain output', () => {
    expect(sandboxBlocks('hi\n/bin/bash: line 3: /home/me/x: Read-only file system\nrc=1')).toEqual([
      '/home/me/x: Read-only file system',
    ]);
    expect(
      sandboxBlocks(
        'PermissionError: [Errno 1] Operation not permitted\n<sandbox_violations>\ndeny network-outbound example.com:80 (user denied)\n</sandbox_violations>',
      ),
    ).toEqual([
      'deny network-outbound example.com:80 (user denied)',
      'PermissionError: [Errno 1] Operation not permitted',
    ]);
    expect(sandboxBlocks('all fine\n42')).toEqual([]);
  });
});
