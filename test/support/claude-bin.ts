// The real Claude Code binary the tests run: the pinned devDependency, or the current release with
// KLAUDE_TEST_CLAUDE=current (claude-package.ts; docs/claude-versions.md).
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CLAUDE_FLAVOUR, claudePackageDir } from './claude-package.js';
import { runProcess, type RunProcessOptions, type RunProcessResult } from './run-process.js';

export { CLAUDE_FLAVOUR, CLAUDE_VERSION, claudeAtLeast } from './claude-package.js';

/** Absolute path of the real `claude` binary. Throws (never skips) if it is missing. */
export function claudeBin(): string {
  const bin = join(claudePackageDir(), 'bin', 'claude.exe');
  if (!existsSync(bin)) {
    throw new Error(
      CLAUDE_FLAVOUR === 'current'
        ? `The current Claude Code release is missing at ${bin}: run \`node scripts/claude-current.mjs\` (npm test does).`
        : `The real claude binary is missing at ${bin}. It comes from the devDependency @anthropic-ai/claude-code ` +
            '(its postinstall puts the native binary in bin/claude.exe); run `npm install` in the repo.',
    );
  }
  return bin;
}

/**
 * A `bin` dir under `root` holding `claude` → the binary this run tests, to put first on a child's
 * PATH. The binary's own directory will not do: it holds only `claude.exe`, so klaude's lookup of
 * `claude` went past it to npm's `node_modules/.bin/claude` (the pinned one, even in the current pass).
 */
export function claudeOnPath(root: string): string {
  const dir = join(root, 'bin');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const link = join(dir, 'claude');
  if (!existsSync(link)) symlinkSync(claudeBin(), link);
  return dir;
}

/** Absolute path of the real `claude` binary (resolved when this module loads; throws if missing). */
export const CLAUDE_BIN: string = claudeBin();

/** Run the real claude (e.g. `['-p', 'hi', '--output-format', 'stream-json', '--verbose']`), collect its output. */
export function runClaude(args: string[], opts: RunProcessOptions = {}): Promise<RunProcessResult> {
  return runProcess(claudeBin(), args, { timeoutMs: 60_000, ...opts });
}
