// What an agent's CLI leaves running in a process group of its own (as codex does with its
// commands and its bubblewrap fs helpers) ends with the CLI: when it exits, and when its runtime is
// killed (SIGKILL included). A runtime leads its own session; those strays stay in it.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/lib/process.js';
import { sessionStrays } from '../../src/ownership/session-strays.js';
import { REPO_ROOT } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

let home: TempHome | undefined;
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  home?.cleanup();
  home = undefined;
});

/** A process in a group of its own (same session), ignoring SIGTERM, that writes its pid to `file`. */
const stubborn = (file: string): string =>
  `python3 -c 'import os,signal,time; os.setpgid(0,0); signal.signal(signal.SIGTERM, signal.SIG_IGN); ` +
  `open(${JSON.stringify(file)}, "w").write(str(os.getpid())); time.sleep(300)'`;

/**
 * A runtime stand-in, detached as runtimes are (a session of its own): it runs a CLI through the
 * runtime's CliProcess that leaves a stubborn stray in its own group and exits once it is up, and
 * keeps a child of its own in a group of its own. Prints the pids, then EXITED once the CLI's exit
 * is told; lives on until killed.
 */
function runtime(h: TempHome, cliLives: boolean): { out: () => string; pid: number } {
  const strayFile = path.join(h.root, 'stray.pid');
  const cli = `${stubborn(strayFile)} & while [ ! -s ${strayFile} ]; do sleep 0.05; done; ${cliLives ? 'sleep 300' : 'exit 0'}`;
  const file = path.join(h.root, 'runtime.mjs');
  writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
import { CliProcess } from ${JSON.stringify(path.join(REPO_ROOT, 'src/runtime/cli-process.ts'))};
const own = spawn('python3', ['-c', 'import os,time; os.setpgid(0,0); time.sleep(300)'], { stdio: 'ignore' });
const cli = new CliProcess(
  { file: '/bin/sh', args: ['-c', ${JSON.stringify(cli)}], env: {}, stdin: 'closed' },
  { cwd: ${JSON.stringify(h.root)}, env: process.env, onLine: () => {} },
);
console.log('PIDS', process.pid, own.pid, cli.pid);
cli.exited.then(() => console.log('EXITED'));
setInterval(() => {}, 1000);
`,
  );
  const p = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  started.push(p.pid!);
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return { out: () => out, pid: p.pid! };
}

async function pids(h: TempHome, r: { out: () => string }): Promise<{ cli: number; own: number; stray: number }> {
  const strayFile = path.join(h.root, 'stray.pid');
  await until('the runtime stand-in to start its CLI', () => /PIDS \d+ \d+ \d+/.test(r.out()), 30_000);
  await until('the stray to be up', () => readIf(strayFile) !== '', 30_000);
  const [, , own, cli] = /PIDS (\d+) (\d+) (\d+)/.exec(r.out())!.map(Number);
  const stray = Number(readIf(strayFile));
  started.push(own!, cli!, stray);
  return { own: own!, cli: cli!, stray };
}

function readIf(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

describe('what a CLI leaves in its runtime session', () => {
  it('ends, SIGKILL after the grace, when the CLI exits; the runtime and its own children stay', async () => {
    const h = (home = makeTempHome());
    const r = runtime(h, false);
    const { own, stray } = await pids(h, r);
    await until('the CLI exit to be told', () => r.out().includes('EXITED'), 30_000);
    expect(isAlive(stray)).toBe(false);
    expect(isAlive(r.pid)).toBe(true);
    expect(isAlive(own)).toBe(true);
    expect(sessionStrays(r.pid, r.pid)).toEqual([]);
  });

  it('ends when the runtime is killed with SIGKILL mid-run (its watchdog)', async () => {
    const h = (home = makeTempHome());
    const r = runtime(h, true);
    const { cli, stray } = await pids(h, r);
    expect(isAlive(stray)).toBe(true);
    process.kill(r.pid, 'SIGKILL');
    await until('the CLI to end', () => !isAlive(cli), 15_000);
    await until('the stray in its own group to end', () => !isAlive(stray), 15_000);
  });
});
