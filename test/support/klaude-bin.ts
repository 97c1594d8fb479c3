// Run the built klaude CLI (`dist/cli.js`, built by `npm test` before vitest runs).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess, type RunProcessOptions, type RunProcessResult } from './run-process.js';

export const REPO_ROOT: string = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Absolute path of the built entry script. */
export const KLAUDE_CLI: string = join(REPO_ROOT, 'dist', 'cli.js');

export type RunKlaudeOptions = RunProcessOptions;
export type RunKlaudeResult = RunProcessResult;

/** Spawn `node dist/cli.js ...args` (env usually `tempHome.env`), collect its output. */
export function runKlaude(args: string[], opts: RunKlaudeOptions = {}): Promise<RunKlaudeResult> {
  if (!existsSync(KLAUDE_CLI)) {
    return Promise.reject(new Error(`${KLAUDE_CLI} is missing: build it first (npm run build; npm test builds it).`));
  }
  return runProcess(process.execPath, [KLAUDE_CLI, ...args], opts);
}
