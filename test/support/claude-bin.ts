// The real Claude Code binary from the devDependency @anthropic-ai/claude-code (pinned 2.1.197).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess, type RunProcessOptions, type RunProcessResult } from './run-process.js';

const require = createRequire(import.meta.url);

function resolveClaudeBin(): string {
  let pkgDir: string;
  try {
    pkgDir = dirname(require.resolve('@anthropic-ai/claude-code/package.json'));
  } catch {
    pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', '@anthropic-ai', 'claude-code');
  }
  return join(pkgDir, 'bin', 'claude.exe');
}

/** Absolute path of the real `claude` binary. Throws (never skips) if it is missing. */
export function claudeBin(): string {
  const bin = resolveClaudeBin();
  if (!existsSync(bin)) {
    throw new Error(
      `The real claude binary is missing at ${bin}. It comes from the devDependency @anthropic-ai/claude-code ` +
        '(its postinstall puts the native binary in bin/claude.exe); run `npm install` in the repo.',
    );
  }
  return bin;
}

/** Absolute path of the real `claude` binary (resolved when this module loads; throws if missing). */
export const CLAUDE_BIN: string = claudeBin();

/** The version the fixtures and facts were captured with. */
export const CLAUDE_VERSION = '2.1.197';

/** Run the real claude (e.g. `['-p', 'hi', '--output-format', 'stream-json', '--verbose']`), collect its output. */
export function runClaude(args: string[], opts: RunProcessOptions = {}): Promise<RunProcessResult> {
  return runProcess(claudeBin(), args, { timeoutMs: 60_000, ...opts });
}
