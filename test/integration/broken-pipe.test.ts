// `klaude <command> | head -1`: when the reader of stdout is gone before klaude writes, every
// command ends quietly (exit 0, no stack trace), not only the listings that once handled it. And a
// pipe that fills up loses nothing.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/db/repos/sessions.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

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

// Commands write straight to fd 1 when it is a pipe (commands/cli/output.ts). A pipe another process
// made non-blocking (node does, for its own stdout) refuses a write when full (EAGAIN): the rest
// must go out once the reader reads, nothing lost and nothing repeated.
describe('a full non-blocking pipe', () => {
  it('klaude sessions --json writes its whole listing once the reader reads', async () => {
    home = makeTempHome({ prefix: 'klaude-pipe-' });
    const { db, hash } = seedProject(home);
    try {
      for (let i = 0; i < 600; i++)
        createSession(db, { projectId: hash, type: 'general', status: 'done', prompt: `task ${i} `.repeat(30) });
    } finally {
      db.close();
    }
    // The parent shares its stdout with klaude and makes it non-blocking (node's stdout stream does)
    // once the child runs (libuv makes a child's stdio blocking as it spawns it): sh waits for the
    // parent's word, then execs klaude.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn('sh', ['-c', 'read go && exec "$0" "$@"', process.execPath, ${JSON.stringify(KLAUDE_CLI)}, 'sessions', '--json'], { stdio: ['pipe', 'inherit', 'inherit'] });
         process.stdout;
         process.stderr.write('pid ' + c.pid + '\\n');
         c.stdin.end('go\\n');
         c.on('exit', (code) => process.exit(code ?? 1));`,
      ],
      { cwd: home.projectDir, env: home.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    parent.stdout.pause();
    let stderr = '';
    parent.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    await until('the child pid', () => /pid \d+\n/.test(stderr));
    const pid = Number(/pid (\d+)/.exec(stderr)![1]);
    // klaude has filled the pipe (64 KiB, nothing read yet): its next write is refused.
    const written = (): number => Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
    await until('klaude to fill the pipe', () => written() >= 65_536);
    const out: Buffer[] = [];
    parent.stdout.on('data', (d: Buffer) => out.push(d));
    parent.stdout.resume();
    const code = await new Promise<number | null>((resolve) => parent.on('close', resolve));
    expect(stderr.replace(/pid \d+\n/, '')).toBe('');
    expect(code).toBe(0);
    const listed = JSON.parse(Buffer.concat(out).toString('utf8')) as unknown[];
    expect(listed).toHaveLength(600);
  });
});
