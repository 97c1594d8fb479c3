// Which Claude Code the tests run, and where its package is. Two versions (docs/claude-versions.md):
// - pinned (default): the devDependency @anthropic-ai/claude-code in package.json;
// - current (KLAUDE_TEST_CLAUDE=current): package.json's config.claudeCurrent, installed into
//   .cache/claude-current by `node scripts/claude-current.mjs` (which `npm test` runs).
// Nothing here throws when the binary is missing (claude-bin.ts does), so a test that never runs
// claude can still use the version.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** 'pinned' (the devDependency) or 'current' (the newest release tested, KLAUDE_TEST_CLAUDE=current). */
export const CLAUDE_FLAVOUR: 'pinned' | 'current' = process.env.KLAUDE_TEST_CLAUDE === 'current' ? 'current' : 'pinned';

/** The directory of the @anthropic-ai/claude-code package under test. */
export function claudePackageDir(): string {
  if (CLAUDE_FLAVOUR === 'current') {
    return join(REPO, '.cache', 'claude-current', 'node_modules', '@anthropic-ai', 'claude-code');
  }
  try {
    return dirname(require.resolve('@anthropic-ai/claude-code/package.json'));
  } catch {
    return join(REPO, 'node_modules', '@anthropic-ai', 'claude-code');
  }
}

function readVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(claudePackageDir(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** The version of the claude under test (the fixtures were captured with the pinned 2.1.197). */
export const CLAUDE_VERSION: string = readVersion();

/** True when the claude under test is at least `version` (`major.minor.patch`). */
export function claudeAtLeast(version: string): boolean {
  const parts = (v: string) => v.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const have = parts(CLAUDE_VERSION);
  const want = parts(version);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== (want[i] ?? 0)) return (have[i] ?? 0) > (want[i] ?? 0);
  }
  return true;
}
