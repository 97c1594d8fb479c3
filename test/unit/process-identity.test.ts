// Process identity is pid + start time from either source (/proc, or `ps -o lstart` where /proc is
// missing), with the same answers from both; a reused pid is never signalled, and a process whose
// start can't be compared gets SIGTERM at most, never SIGKILL.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  identities,
  isAlive,
  isSameProcess,
  parseLstart,
  processStartTime,
  signalProcess,
  terminateProcess,
  SYSTEM_SOURCE,
  type StartSource,
} from '../../src/lib/process.js';
import { until } from '../support/until.js';

const emptyRoot = mkdtempSync(path.join(tmpdir(), 'klaude-noproc-'));
/** A machine without /proc: start times come from `ps`. */
const PS_ONLY: StartSource = { procRoot: emptyRoot, ps: 'ps' };
/** Neither /proc nor `ps`: no start time can be known. */
const BLIND: StartSource = { procRoot: emptyRoot, ps: path.join(emptyRoot, 'no-such-ps') };
const hasProc = process.platform === 'linux';

afterAll(() => rmSync(emptyRoot, { recursive: true, force: true }));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * A zombie: a child that exits at once, of a parent that never waits for children — as a lazily
 * reaping init leaves a dead process in the pid table. (A shell's `sleep 0 & exec sleep 60` was
 * reaped by the shell now and then, when the child ended before the exec.)
 */
const FORK_AND_NEVER_WAIT =
  'import os, time\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)\n';

async function zombie(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn('python3', ['-c', FORK_AND_NEVER_WAIT], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(parent);
  let out = '';
  parent.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await until('the background pid', () => /\d+\n/.test(out));
  const pid = Number(out.trim());
  await until('it is a zombie', () =>
    spawnSync('ps', ['-o', 'stat=', '-p', String(pid)])
      .stdout.toString()
      .startsWith('Z'),
  );
  return { pid, parent };
}

/** A node child that notes each SIGTERM on stdout (and ignores it), answers `ping`, and is ready once it says so. */
async function stubborn(): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `process.on('SIGTERM', () => console.log('term'));
       process.stdin.on('data', () => console.log('pong'));
       console.log('ready');`,
    ],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await until('the child to be ready', () => out.includes('ready'), 10_000);
  return { child, out: () => out };
}

/** Still running (not killed): it answers. */
async function answers(c: { child: ChildProcess; out: () => string }): Promise<boolean> {
  const before = c.out().split('pong').length;
  c.child.stdin!.write('ping\n');
  await until(
    'an answer or its end',
    () => c.out().split('pong').length > before || c.child.exitCode !== null || c.child.signalCode !== null,
    10_000,
  );
  return c.out().split('pong').length > before;
}

const deadPid = (): number => spawnSync('true').pid!;

describe('parseLstart', () => {
  it('reads ps lstart in the C locale and UTC, one- and two-digit days alike', () => {
    expect(parseLstart('Wed Nov 25 16:42:08 2026')).toBe(Date.UTC(2026, 10, 25, 16, 42, 8) / 1000);
    expect(parseLstart(' Tue Jan  6 01:02:03 2026\n')).toBe(Date.UTC(2026, 0, 6, 1, 2, 3) / 1000);
    expect(parseLstart('Mi Nov 25 16:42:08 2026')).toBeNull();
    expect(parseLstart('')).toBeNull();
  });
});

describe('processStartTime', () => {
  it('without /proc reads ps: minus the seconds since the epoch, stable for the process', () => {
    const s = processStartTime(process.pid, PS_ONLY)!;
    expect(s).toBeLessThan(0);
    expect(-s).toBeLessThanOrEqual(Date.now() / 1000);
    expect(-s).toBeGreaterThan(Date.now() / 1000 - 24 * 3600 * 365);
    expect(processStartTime(process.pid, PS_ONLY)).toBe(s);
    expect(processStartTime(deadPid(), PS_ONLY)).toBeNull();
    expect(processStartTime(process.pid, BLIND)).toBeNull();
  });

  it.runIf(hasProc)('with /proc reads clock ticks since boot (>= 0)', () => {
    expect(processStartTime(process.pid)).toBeGreaterThanOrEqual(0);
  });
});

describe('identities', () => {
  const sources: [string, StartSource][] = [
    ['ps (no /proc)', PS_ONLY],
    ...(hasProc ? ([['/proc', SYSTEM_SOURCE]] as [string, StartSource][]) : []),
  ];

  it.each(sources)('gives the same answers from %s', async (_name, src) => {
    const { child } = await stubborn();
    const pid = child.pid!;
    const mine = processStartTime(process.pid, src)!;
    const its = processStartTime(pid, src)!;
    // A wrong start: one second (ps) or one tick (/proc) away, as a reused pid would show.
    const wrong = (s: number) => s - 1;
    const rows = [
      { pid: process.pid, pidStart: mine },
      { pid: process.pid, pidStart: wrong(mine) },
      { pid, pidStart: its },
      { pid, pidStart: wrong(its) },
      { pid, pidStart: null },
      { pid: deadPid(), pidStart: mine },
    ];
    expect(identities(rows, src)).toEqual(['same', 'other', 'same', 'other', 'unknown', 'gone']);
    expect(rows.map((r) => isSameProcess(r.pid, r.pidStart, src))).toEqual([true, false, true, false, true, false]);
  });

  it('compares a start recorded by ps with ps, whatever the machine has now', () => {
    const recorded = processStartTime(process.pid, PS_ONLY)!;
    expect(identities([{ pid: process.pid, pidStart: recorded }])).toEqual(['same']);
    expect(identities([{ pid: process.pid, pidStart: recorded - 1 }])).toEqual(['other']);
  });

  it.each(sources)('takes a zombie for dead from %s: it died, whoever has yet to reap it', async (_name, src) => {
    const z = await zombie();
    expect(processStartTime(z.pid, src)).not.toBeNull(); // still in the pid table, with its start
    const start = processStartTime(z.pid, src)!;
    expect(identities([{ pid: z.pid, pidStart: start }], src)).toEqual(['gone']);
    expect(identities([{ pid: z.pid, pidStart: null }], src)).toEqual(['gone']);
    expect(isSameProcess(z.pid, start, src)).toBe(false);
    expect(isAlive(z.pid, src)).toBe(false);
    expect(isAlive(z.parent.pid, src)).toBe(true);
  });

  it('says unknown where neither source can be read, and gone for a dead pid', () => {
    expect(
      identities(
        [
          { pid: process.pid, pidStart: -1 },
          { pid: deadPid(), pidStart: -1 },
        ],
        BLIND,
      ),
    ).toEqual(['unknown', 'gone']);
    if (hasProc) expect(identities([{ pid: process.pid, pidStart: 5 }], BLIND)).toEqual(['unknown']);
  });
});

describe('signalProcess / terminateProcess', () => {
  it.each([['ps (no /proc)', PS_ONLY], ...(hasProc ? [['/proc', SYSTEM_SOURCE]] : [])] as [string, StartSource][])(
    'never signals a reused pid (%s): a recorded start that differs is another process',
    async (_name, src) => {
      const c = await stubborn();
      const p = { pid: c.child.pid!, pidStart: processStartTime(c.child.pid!, src)! - 1 };
      expect(signalProcess(p, 'SIGTERM', { source: src })).toBe(false);
      expect(signalProcess(p, 'SIGKILL', { source: src })).toBe(false);
      expect(await terminateProcess(p, 10, { source: src })).toBe(true); // the recorded one is gone
      expect(await answers(c)).toBe(true);
      expect(c.out()).not.toContain('term');
    },
  );

  it('signals the recorded process, SIGKILL included, when its start matches', async () => {
    const c = await stubborn();
    const p = { pid: c.child.pid!, pidStart: processStartTime(c.child.pid!, PS_ONLY)! };
    expect(signalProcess(p, 'SIGTERM', { source: PS_ONLY })).toBe(true);
    await until('the SIGTERM to arrive', () => c.out().includes('term'), 10_000);
    expect(await terminateProcess(p, 10, { source: PS_ONLY })).toBe(true);
    await until('its exit', () => c.child.signalCode !== null, 10_000);
    expect(c.child.signalCode).toBe('SIGKILL');
  });

  it('a process known by its pid alone gets SIGTERM, never SIGKILL', async () => {
    for (const [p, src] of [
      [{ pid: 0, pidStart: null }, SYSTEM_SOURCE],
      [{ pid: 0, pidStart: -1 }, BLIND],
    ] as const) {
      const c = await stubborn();
      const rec = { ...p, pid: c.child.pid! };
      expect(signalProcess(rec, 'SIGKILL', { source: src })).toBe(false);
      expect(await terminateProcess(rec, 10, { source: src })).toBe(false); // still running, not killed
      await until('the SIGTERM to arrive', () => c.out().includes('term'), 10_000);
      expect(await answers(c)).toBe(true);
    }
  });
});
