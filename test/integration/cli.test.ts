import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function setup(): TempHome {
  home = makeTempHome({ baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-ant-test-cli' });
  return home;
}

describe('klaude CLI skeleton', () => {
  it('prints the version', async () => {
    const h = setup();
    const r = await runKlaude(['--version'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists every subcommand with one line each in --help', async () => {
    const h = setup();
    const r = await runKlaude(['--help'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Commands');
    expect(r.stdout).toMatch(/^\s+config\s+\S.*$/m);
  });

  it('documents a command’s flags with <cmd> --help', async () => {
    const h = setup();
    const r = await runKlaude(['config', '--help'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--json');
  });

  it('rejects an unknown command with one line, a hint and exit 2', async () => {
    const h = setup();
    const r = await runKlaude(['frobnicate'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^klaude: unknown command 'frobnicate' \[E_UNKNOWN_COMMAND\] — hint: /);
  });

  it('rejects an unknown flag with one line naming it and exit 2', async () => {
    const h = setup();
    const r = await runKlaude(['config', '--frob'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain("'--frob'");
    expect(r.stderr).toContain('E_UNKNOWN_FLAG');
  });

  it('prints the effective config, as text and --json', async () => {
    const h = setup();
    writeFileSync(path.join(h.klaudeHome, 'config.yaml'), 'switch:\n  graceSeconds: 2.5\n');
    const text = await runKlaude(['config'], { env: h.env, cwd: h.projectDir });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/switch\.graceSeconds\s+2\.5\s+\(file\)/);
    expect(text.stdout).toMatch(/stream\.timestamp\s+false\s+\(default\)/);
    const json = await runKlaude(['config', '--json'], { env: h.env, cwd: h.projectDir });
    expect(JSON.parse(json.stdout).config['switch.graceSeconds']).toBe(2.5);
  });

  it.each([
    ['switch:\n  graceSeconds: fast\n', /switch\.graceSeconds must be a number/],
    ['swich:\n  graceSeconds: 2\n', /unknown key 'swich\.graceSeconds' \(did you mean 'switch\.graceSeconds'\?\)/],
    ['agents:\n  defaultRuntime: emacs\n', /agents\.defaultRuntime must be one of claude, codex/],
    ['switch: [\n', /not valid YAML at line/],
  ])('names the bad key of a broken config.yaml (%#)', async (yaml, pattern) => {
    const h = setup();
    writeFileSync(path.join(h.klaudeHome, 'config.yaml'), yaml);
    const r = await runKlaude(['config'], { env: h.env, cwd: h.projectDir });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).toContain('E_CONFIG');
  });

  it('prints a stack only with KLAUDE_DEBUG=1', async () => {
    const h = setup();
    const dir = path.join(h.klaudeHome);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.yaml'), 'x: 1\n');
    chmodSync(path.join(dir, 'config.yaml'), 0o600);
    const plain = await runKlaude(['config'], { env: h.env, cwd: h.projectDir });
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runKlaude(['config'], { env: { ...h.env, KLAUDE_DEBUG: '1' }, cwd: h.projectDir });
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
