// The Claude Code versions `klaude doctor` calls tested: the pinned devDependency must be among them.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTestedClaudeVersion, TESTED_CLAUDE_VERSIONS } from '../../src/core/tested-claude.js';
import { checkClaude, checkNode } from '../../src/doctor/claude-checks.js';
import { defaultConfig } from '../../src/config/schema.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};

describe('tested claude versions', () => {
  it('hold the version package.json pins, first', () => {
    const pinned = pkg.devDependencies['@anthropic-ai/claude-code'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(TESTED_CLAUDE_VERSIONS[0]).toBe(pinned);
    expect(isTestedClaudeVersion(pinned!)).toBe(true);
    expect(isTestedClaudeVersion('1.0.0')).toBe(false);
  });

  it('doctor: a claude not found is ✗ with the install hint; an old Node is ✗', () => {
    const r = checkClaude({ ...defaultConfig(), 'claude.binary': '/nowhere/claude' }, { PATH: '' });
    expect(r).toMatchObject({ binary: null, result: { level: 'error', ok: false } });
    expect(r.result.fix).toContain('fix claude.binary in config.yaml');
    expect(checkNode('18.19.0')).toMatchObject({ level: 'error', detail: 'Node 18.19.0 is older than 20' });
    expect(checkNode('20.0.0').level).toBe('ok');
  });

  it('doctor: a claude of another version is a warning naming the tested ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'klaude-untested-'));
    try {
      const bin = join(dir, 'claude');
      writeFileSync(bin, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n', { mode: 0o755 });
      const r = checkClaude(defaultConfig(), { PATH: dir });
      expect(r.binary).toBe(bin);
      expect(r.result).toMatchObject({ level: 'warn', ok: true });
      expect(r.result.detail).toBe(
        `claude 9.9.9 at ${bin} (from PATH): klaude was tested with ${TESTED_CLAUDE_VERSIONS.join(', ')}, not this one`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
