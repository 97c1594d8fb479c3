// Runtime choice (--runtime > definition > model name > config default), the registry, and
// finding a CLI (missing → one-line E_RUNTIME_MISSING with the install hint).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { KlaudeError } from '../../src/lib/errors.js';
import { getAdapter } from '../../src/adapters/registry.js';
import { cliVersion, parseVersion, resolveCliBinary } from '../../src/adapters/cli-binary.js';
import { CODEX_CLI } from '../../src/adapters/codex/adapter.js';
import { CURSOR_CLI } from '../../src/adapters/cursor/adapter.js';
import { chooseRuntime, runtimeForModel } from '../../src/agent-ops/select-runtime.js';

describe('runtimeForModel', () => {
  it.each([
    ['gpt-5', 'codex'],
    ['GPT-4.1-mini', 'codex'],
    ['o3', 'codex'],
    ['o4-mini', 'codex'],
    ['codex-mini-latest', 'codex'],
    ['gemini-2.5-pro', 'gemini'],
    ['claude-sonnet-4-5', 'claude'],
    ['sonnet', 'claude'],
    ['opus', 'claude'],
    ['anthropic/claude-sonnet-4-5', 'opencode'],
    ['openai/gpt-5', 'opencode'],
    ['llama3', null],
    ['omni', null],
    ['', null],
    [null, null],
  ])('%s → %s', (model, runtime) => expect(runtimeForModel(model)).toBe(runtime));
});

describe('chooseRuntime', () => {
  const d = { configDefault: 'claude' as const };
  it.each([
    // [inputs, runtime, model, reason]
    [{ flag: 'codex', definition: 'gemini' as const, model: 'gemini-2.5-pro' }, 'codex', 'gemini-2.5-pro', 'flag'],
    [{ definition: 'gemini' as const, model: 'gpt-5' }, 'gemini', 'gpt-5', 'definition'],
    [{ model: 'gpt-5' }, 'codex', 'gpt-5', 'model'],
    [{ model: 'gemini-2.5-flash' }, 'gemini', 'gemini-2.5-flash', 'model'],
    [{}, 'claude', null, 'config'],
    [{ configDefault: 'opencode' as const }, 'opencode', null, 'config'],
    // The config's default model decides when nothing else does…
    [{ configModel: 'o3' }, 'codex', 'o3', 'model'],
    // …and is dropped for a runtime it does not fit (no `sonnet` for codex).
    [{ flag: 'codex', configModel: 'sonnet' }, 'codex', null, 'flag'],
    [{ flag: 'claude', configModel: 'sonnet' }, 'claude', 'sonnet', 'flag'],
    [{ flag: 'codex', configModel: 'my-custom-model' }, 'codex', 'my-custom-model', 'flag'],
    [{ flag: ' Gemini ' }, 'gemini', null, 'flag'],
  ])('%o → %s', (input, runtime, model, reason) => {
    expect(chooseRuntime({ ...d, ...input })).toEqual({ runtime, model, reason });
  });

  it('an unknown --runtime is a usage error listing the runtimes', () => {
    const e = (() => {
      try {
        chooseRuntime({ ...d, flag: 'copilot' });
      } catch (err) {
        return err as KlaudeError;
      }
    })();
    expect(e).toBeInstanceOf(KlaudeError);
    expect(e).toMatchObject({
      code: 'E_USAGE',
      message: "unknown runtime 'copilot'",
      hint: 'runtimes: claude, codex, gemini, cursor, opencode',
    });
  });
});

describe('registry', () => {
  it.each(['claude', 'codex', 'gemini', 'opencode', 'cursor'])('%s has an adapter', async (name) => {
    expect((await getAdapter(name)).name).toBe(name);
  });
});

describe('finding a CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'klaude-cli-bin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const missing = (f: () => unknown): KlaudeError => {
    try {
      f();
    } catch (e) {
      return e as KlaudeError;
    }
    throw new Error('expected an error');
  };

  it('missing on PATH → E_RUNTIME_MISSING, one line, with the install hint', () => {
    const e = missing(() => resolveCliBinary(CODEX_CLI, defaultConfig(), { PATH: dir }));
    expect(e.code).toBe('E_RUNTIME_MISSING');
    expect(e.message).toBe("OpenAI Codex CLI 'codex' not found on PATH (runtime codex)");
    expect(e.hint).toBe('install it (npm i -g @openai/codex) or set codex.binary in config.yaml');
    expect(e.message).not.toContain('\n');
  });

  it('a configured path that does not exist names the key', () => {
    const config = { ...defaultConfig(), 'codex.binary': '/nonexistent/codex' };
    const e = missing(() => resolveCliBinary(CODEX_CLI, config, { PATH: dir }));
    expect(e).toMatchObject({
      code: 'E_RUNTIME_MISSING',
      message: "OpenAI Codex CLI '/nonexistent/codex' not found (runtime codex)",
    });
    expect(e.hint).toBe('fix codex.binary in config.yaml, or install it: npm i -g @openai/codex');
  });

  it('cursor is found as cursor-agent or agent; its version comes from --version', () => {
    const bin = join(dir, 'agent');
    writeFileSync(bin, '#!/bin/sh\necho "2025.09.18-7ae6800"\n');
    chmodSync(bin, 0o755);
    expect(resolveCliBinary(CURSOR_CLI, defaultConfig(), { PATH: dir })).toBe(bin);
    expect(cliVersion(bin, CURSOR_CLI)).toBe('2025.09.18-7ae6800');
  });

  it('an executable that cannot report a version does not run: E_RUNTIME_MISSING', () => {
    const sub = join(dir, 'broken');
    mkdirSync(sub);
    const bin = join(sub, 'codex');
    writeFileSync(bin, '#!/bin/sh\nexit 127\n');
    chmodSync(bin, 0o755);
    const e = missing(() => resolveCliBinary(CODEX_CLI, defaultConfig(), { PATH: sub }));
    expect(e.code).toBe('E_RUNTIME_MISSING');
    expect(e.message).toBe(`OpenAI Codex CLI at ${bin} does not run (\`codex --version\` failed)`);
  });

  it('the devDependency CLIs report their versions from package.json (no process spawned)', () => {
    const bin = join(process.cwd(), 'node_modules', '.bin', 'codex');
    expect(cliVersion(bin, CODEX_CLI)).toBe('0.169.0');
  });

  it('parseVersion', () => {
    expect(parseVersion('codex-cli 0.169.0')).toBe('0.169.0');
    expect(parseVersion('0.61.0\n')).toBe('0.61.0');
    expect(parseVersion('no version')).toBeNull();
  });
});
