// Owner death ends the owner's children (the sh watchdog), and process identity is pid + start
// time: a live pid whose start time differs is not the recorded process.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, isSameProcess, processStartTime } from '../../src/lib/process.js';
import { REPO_ROOT } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';
import { groupHasLiving } from '../support/process-state.js';

let home: TempHome | undefined;
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  home?.cleanup();
  home = undefined;
});

/** A node owner that spawns `child`, guards it, prints both pids, then waits to be killed. */
function owner(h: TempHome, child: string, opts: string): { pids: Promise<[number, number]>; pid: number } {
  const file = path.join(h.root, 'owner.mjs');
  writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
import { guardChild } from ${JSON.stringify(path.join(REPO_ROOT, 'src/ownership/watchdog.ts'))};
const c = spawn('/bin/sh', ['-c', ${JSON.stringify(child)}], { stdio: 'ignore', ...${opts} });
c.on('spawn', () => { guardChild(c.pid, { graceMs: 1000${opts.includes('detached') ? ', group: c.pid' : ''} }); console.log('PIDS', process.pid, c.pid); });
setInterval(() => {}, 1000);
`,
  );
  const p = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pids = new Promise<[number, number]>((resolve) => {
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PIDS (\d+) (\d+)/.exec(out);
      if (m) resolve([Number(m[1]), Number(m[2])]);
    });
  });
  return { pids, pid: p.pid! };
}

describe('guardChild (owner-death watchdog)', () => {
  it('SIGKILL of the owner ends its child within 5 s', async () => {
    const h = (home = makeTempHome());
    const o = owner(h, 'exec sleep 300', '{}');
    const [ownerPid, childPid] = await o.pids;
    strays.push(ownerPid, childPid);
    expect(isAlive(childPid)).toBe(true);
    const t0 = Date.now();
    process.kill(ownerPid, 'SIGKILL');
    await until('the child to end', () => !isAlive(childPid), 5000);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a child ignoring SIGTERM gets SIGKILL after the grace; with group, its grandchildren go too', async () => {
    const h = (home = makeTempHome());
    const o = owner(h, "trap '' TERM; sleep 300 & wait", '{ detached: true }');
    const [ownerPid, childPid] = await o.pids;
    strays.push(ownerPid, childPid);
    process.kill(ownerPid, 'SIGKILL');
    await until('the child to end', () => !isAlive(childPid), 5000);
    await until('its group (the grandchild too) to end', () => !groupHasLiving(childPid), 5000);
  });
});

/**
 * A node owner with one WatchdogPool guarding three children: a plain one, one that ignores SIGTERM
 * and leads its own group (with a grandchild), and one whose guard is disposed (it ended normally,
 * as far as the owner knows). Prints the pids: owner, pool watchdog, then the three children.
 */
function poolOwner(h: TempHome): Promise<number[]> {
  const file = path.join(h.root, 'pool-owner.mjs');
  writeFileSync(
    file,
    `import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { WatchdogPool } from ${JSON.stringify(path.join(REPO_ROOT, 'src/ownership/watchdog-pool.ts'))};
const pool = new WatchdogPool();
const kids = [
  spawn('/bin/sh', ['-c', 'exec sleep 300'], { stdio: 'ignore' }),
  spawn('/bin/sh', ['-c', "trap '' TERM; sleep 300 & wait"], { stdio: 'ignore', detached: true }),
  spawn('/bin/sh', ['-c', 'exec sleep 300'], { stdio: 'ignore', detached: true }),
];
await Promise.all(kids.map((k) => once(k, 'spawn')));
pool.guard(kids[0].pid, { graceMs: 1000 });
pool.guard(kids[1].pid, { graceMs: 1000, group: kids[1].pid });
pool.guard(kids[2].pid, { graceMs: 1000 }).dispose();
console.log('PIDS', process.pid, pool.pid, ...kids.map((k) => k.pid));
setInterval(() => {}, 1000);
`,
  );
  const p = spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<number[]>((resolve) => {
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /PIDS ([\d ]+)\n/.exec(out);
      if (m) resolve(m[1]!.trim().split(' ').map(Number));
    });
  });
}

describe('WatchdogPool (one watchdog for many children)', () => {
  it('SIGKILL of the owner ends every child still guarded (groups too, SIGKILL after the grace) and spares a disposed one', async () => {
    const h = (home = makeTempHome());
    const [ownerPid, wdPid, plain, stubborn, disposed] = await poolOwner(h);
    strays.push(ownerPid!, wdPid!, plain!, stubborn!, disposed!);
    // One watchdog for the three (disposal is a line on its pipe, read before the EOF that ends it).
    expect(wdPid).toBeGreaterThan(0);
    expect(isAlive(wdPid!)).toBe(true);
    process.kill(ownerPid!, 'SIGKILL');
    await until('the plain child to end', () => !isAlive(plain!), 5000);
    await until('the child ignoring SIGTERM, and its group, to end', () => !groupHasLiving(stubborn!), 5000);
    await until('the watchdog to finish', () => !isAlive(wdPid!), 5000);
    expect(isAlive(disposed!)).toBe(true);
  });
});

describe('process identity', () => {
  it('is pid + start time: a recorded start time that differs is another process', () => {
    const start = processStartTime(process.pid);
    if (process.platform !== 'linux') return; // no /proc: start times are unknown (null)
    expect(start).toBeGreaterThan(0);
    expect(isSameProcess(process.pid, start)).toBe(true);
    expect(isSameProcess(process.pid, start! + 1)).toBe(false);
    expect(isSameProcess(process.pid, null)).toBe(true);
  });
});
