// Which CLIs' agents run sandboxed (docs/sandbox.md, "Which CLIs"): the plan of a start with the
// real adapters (claude and codex sandboxed; gemini and opencode unsandboxed, each with its reason),
// and `klaude doctor`'s sandbox line naming each installed CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/adapter.js';
import { geminiAdapter } from '../../src/adapters/gemini/adapter.js';
import { opencodeAdapter } from '../../src/adapters/opencode/adapter.js';
import { cursorAdapter } from '../../src/adapters/cursor/adapter.js';
import type { RuntimeAdapter } from '../../src/adapters/runtime-adapter.js';
import { planSandbox } from '../../src/agent-ops/sandbox-plan.js';
import { defaultConfig, type Config } from '../../src/config/schema.js';
import { checkSandbox, installedRuntimes, type RuntimeSandbox } from '../../src/doctor/sandbox-check.js';
import { NODE_BIN } from '../support/cli-homes.js';

const home = mkdtempSync(join(tmpdir(), 'klaude-sandbox-runtimes-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const plan = (adapter: RuntimeAdapter, flag?: 'on') =>
  planSandbox(
    { home, config: defaultConfig(), env: {}, runtime: adapter.name, adapter, parent: null },
    { definition: null, permissionMode: 'acceptEdits', ...(flag ? { flag } : {}) },
    [],
  );

describe('the plan of a start, per CLI', () => {
  it.runIf(process.platform === 'linux')('codex: sandboxed (its own bubblewrap)', () => {
    expect(plan(codexAdapter)).toEqual({ state: 'sandboxed', engine: 'bubblewrap' });
  });

  it("gemini: unsandboxed, as its tool sandbox cannot hide klaude's home; refused with --sandbox", () => {
    const why = "gemini's tool sandbox cannot hide klaude's home: it hides only .geminiignore'd paths of the workspace";
    expect(plan(geminiAdapter)).toEqual({ state: 'unsandboxed', why });
    expect(() => plan(geminiAdapter, 'on')).toThrow(`gemini agents cannot be sandboxed: ${why} (--sandbox)`);
  });

  it('opencode: unsandboxed, "opencode has no sandbox"; cursor: klaude drives none yet', () => {
    expect(plan(opencodeAdapter)).toEqual({ state: 'unsandboxed', why: 'opencode has no sandbox' });
    expect(plan(cursorAdapter)).toEqual({ state: 'unsandboxed', why: 'klaude drives no sandbox of cursor yet' });
  });
});

describe("the doctor's sandbox line", () => {
  const engine = { engine: 'bubblewrap', missing: null, fix: 'apt install bubblewrap socat' };
  const cfg = (mode: 'auto' | 'on' | 'off'): Config => ({ ...defaultConfig(), 'agents.sandbox': mode });
  const runtimes: RuntimeSandbox[] = [
    { runtime: 'claude', why: null },
    { runtime: 'codex', why: null },
    {
      runtime: 'gemini',
      why: "gemini's tool sandbox cannot hide klaude's home: it hides only .geminiignore'd paths of the workspace",
    },
    { runtime: 'opencode', why: 'opencode has no sandbox' },
  ];

  it('says per installed CLI whether its agents run sandboxed, and why not', () => {
    expect(checkSandbox(cfg('auto'), {}, engine, () => null, runtimes)).toMatchObject({
      level: 'ok',
      detail:
        "bubblewrap: claude and codex agents' commands run sandboxed; gemini agents run unsandboxed (gemini's tool sandbox cannot hide klaude's home: it hides only .geminiignore'd paths of the workspace); opencode agents run unsandboxed (opencode has no sandbox)",
    });
  });

  it("without claude's engine: claude's agents unsandboxed, the others as their CLI says", () => {
    const missing = { ...engine, missing: 'socat is not installed' };
    expect(checkSandbox(cfg('auto'), {}, missing, () => null, runtimes.slice(0, 2))).toMatchObject({
      level: 'warn',
      detail: "socat is not installed: claude agents run unsandboxed; codex agents' commands run sandboxed",
    });
  });

  it('finds the CLIs installed on PATH (the devDependencies), with their sandbox', () => {
    const found = installedRuntimes(defaultConfig(), { PATH: `${NODE_BIN}:/usr/bin:/bin`, HOME: home });
    const by = Object.fromEntries(found.map((r) => [r.runtime, r.why]));
    if (process.platform === 'linux') expect(by.codex).toBeNull();
    expect(by.opencode).toBe('opencode has no sandbox');
    expect(by.gemini).toMatch(/^gemini's tool sandbox cannot hide/);
    expect(
      installedRuntimes(defaultConfig(), { PATH: join(home, 'nothing'), HOME: home }).map((r) => r.runtime),
    ).not.toContain('codex');
  });
});
