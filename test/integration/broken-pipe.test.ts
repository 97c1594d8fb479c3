// `klaude <command> | head -1`: when the reader of stdout is gone before klaude writes, every
// command ends quietly (exit 0, no stack trace), not only the listings that once handled it.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

/** Runs klaude with its stdout's reading end closed at once; resolves with its exit and stderr. */
function withClosedStdout(args: string[], h: TempHome): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [KLAUDE_CLI, ...args], {
      cwd: h.projectDir,
      env: h.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout', () => {
  it.each(['agents', 'agents --json', 'sessions --json', 'status'])('klaude %s ends quietly', async (line) => {
    home = makeTempHome({ prefix: 'klaude-pipe-' });
    const r = await withClosedStdout(line.split(' '), home);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(r.code).toBe(0);
  });
});
