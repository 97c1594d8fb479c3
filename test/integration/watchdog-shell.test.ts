// The watchdog's POSIX sh functions where /proc is missing (macOS) or `sleep` takes whole seconds
// only: identity comes from `ps -o lstart=`, a pid alone is never signalled, and the grace still ends
// in SIGKILL. And the death notice: a process's own SIGKILL runs its command; disposing prevents it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { END_CHILD_SH } from '../../src/ownership/watchdog.js';
import { isAlive } from '../../src/lib/process.js';
import { REPO_ROOT } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

let home: TempHome | undefined;
const strays: ChildProcess[] = [];
afterEach(() => {
  for (const c of strays.splice(0)) c.kill('SIGKILL');
  home?.cleanup();
  home = undefined;
});

/** END_CHILD_SH as it runs where /proc does not exist. */
const NO_PROC = END_CHILD_SH.replaceAll('/proc/', '/nonexistent-proc/');

function sh(script: string, env: NodeJS.ProcessEnv = process.env): { out: string; code: number | null } {
  const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8', env });
  return { out: r.stdout.trim(), code: r.status };
}

/** A child that ignores SIGTERM (only SIGKILL ends it). */
function stubborn(): ChildProcess {
  const c = spawn('/bin/sh', ['-c', "trap '' TERM; while :; do sleep 1; done"], { stdio: 'ignore' });
  strays.push(c);
  return c;
}

describe('watchdog shell without /proc', () => {
  it('takes identity from ps -o lstart=, and a different start time or no identity signals nothing', async () => {
    const c = stubborn();
    await until('spawned', () => c.pid !== undefined && isAlive(c.pid));
    const id = sh(`${NO_PROC}\narm_ident ${c.pid} -`).out;
    expect(id).toMatch(/^ps:\S/);
    expect(sh(`${NO_PROC}\nsame ${c.pid} '${id}' && echo same`).out).toBe('same');
    expect(sh(`${NO_PROC}\nsame ${c.pid} 'ps:Mon Jan  1 00:00:00 2001' || echo other`).out).toBe('other');
    // No identity at all (neither /proc nor ps): the pid is left alone.
    sh(`${NO_PROC}\nend_child ${c.pid} '' 1 -`);
    expect(isAlive(c.pid)).toBe(true);
    // Its identity: SIGTERM is ignored, SIGKILL follows the grace.
    const r = sh(`${NO_PROC}\nend_child ${c.pid} '${id}' 3 -; echo ended`);
    expect(r.out).toBe('ended');
    await until('the child killed', () => c.exitCode !== null || c.signalCode !== null);
    expect(c.signalCode).toBe('SIGKILL');
  });

  it('with /proc: an identity from another start time is refused at arm time', async () => {
    const c = stubborn();
    await until('spawned', () => c.pid !== undefined && isAlive(c.pid));
    expect(sh(`${END_CHILD_SH}\narm_ident ${c.pid} 1`).out).toBe('');
    expect(sh(`${END_CHILD_SH}\narm_ident ${c.pid} -`).out).toMatch(/^proc:\d+$/);
  });

  it.each([
    ['with /proc', END_CHILD_SH],
    ['without /proc', NO_PROC],
  ])('%s: a zombie has no identity, so it is neither waited for nor signalled', async (_name, script) => {
    // A child that exits at once under a parent that never waits for it: a zombie (a shell may reap
    // a background job before it execs, so the parent is one that never reaps).
    const parent = spawn(
      'python3',
      ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    strays.push(parent);
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await until('the background pid', () => /\d+\n/.test(out));
    const pid = Number(out.trim());
    await until('it is a zombie', () => sh(`ps -o stat= -p ${pid}`).out.startsWith('Z'));
    expect(sh(`${script}\narm_ident ${pid} -`).out).toBe('');
    expect(sh(`${script}\nsame ${pid} "$(ident ${pid})" || echo gone`).out).toBe('gone');
  });

  it('where sleep takes whole seconds only, the grace is counted in seconds and still ends in SIGKILL', async () => {
    home = makeTempHome({ prefix: 'klaude-wdsh-' });
    const bin = path.join(home.root, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'sleep'), '#!/bin/sh\ncase $1 in *.*) exit 1 ;; esac\nexec /bin/sleep "$1"\n');
    chmodSync(path.join(bin, 'sleep'), 0o755);
    const c = stubborn();
    await until('spawned', () => c.pid !== undefined && isAlive(c.pid));
    const started = Date.now();
    const r = sh(`${END_CHILD_SH}\nend_child ${c.pid} "$(arm_ident ${c.pid} -)" 20 -; echo ended`, {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
    });
    expect(r.out).toBe('ended');
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(1900); // 20 tenths = two whole-second sleeps
    expect(took).toBeLessThan(10_000); // not 20 seconds
    await until('the child killed', () => c.signalCode !== null);
    expect(c.signalCode).toBe('SIGKILL');
  });
});

describe('death notice', () => {
  function owner(h: TempHome, marker: string, dispose: boolean): ChildProcess {
    const file = path.join(h.root, 'owner.mjs');
    writeFileSync(
      file,
      `import { onOwnDeath } from ${JSON.stringify(path.join(REPO_ROOT, 'src/ownership/death-notice.ts'))};
const n = onOwnDeath(['/bin/sh', '-c', 'echo "$1" > "$2"', 'x', 'died', ${JSON.stringify(marker)}]);
if (${dispose}) n.dispose();
console.log('ARMED');
setInterval(() => {}, 1000);
`,
    );
    const p = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    strays.push(p);
    return p;
  }
  const armed = (p: ChildProcess): Promise<void> =>
    new Promise((resolve) => p.stdout!.on('data', (d: Buffer) => d.toString().includes('ARMED') && resolve()));

  it('SIGKILL of the process runs its command at once', async () => {
    home = makeTempHome({ prefix: 'klaude-notice-' });
    const marker = path.join(home.root, 'marker');
    const p = owner(home, marker, false);
    await armed(p);
    expect(existsSync(marker)).toBe(false);
    const killedAt = Date.now();
    p.kill('SIGKILL');
    await until('the command ran', () => existsSync(marker), 10_000);
    expect(Date.now() - killedAt).toBeLessThan(2000);
  });

  it('a disposed notice runs nothing', async () => {
    home = makeTempHome({ prefix: 'klaude-notice-' });
    const marker = path.join(home.root, 'marker');
    const p = owner(home, marker, true);
    await armed(p);
    p.kill('SIGKILL');
    await until('the owner gone', () => p.signalCode !== null);
    // The notice's sh was killed at dispose: nothing is left that could still run the command.
    const left = sh(`ps -eo args | grep -c '[k]laude-death-notice.*${path.basename(home.root)}' || true`).out;
    expect(left).toBe('0');
    expect(existsSync(marker)).toBe(false);
  });
});
