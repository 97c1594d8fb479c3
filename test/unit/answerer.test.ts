// Who answered a permission request, from the process at the other end of the runtime's socket:
// the person (a terminal of their own, the dashboard) or an agent passing for one.
import { describe, expect, it } from 'vitest';
import { classifyAnswerer, verdictOf } from '../../src/ownership/answerer.js';
import { ancestry, parsePs, parseStat, ttyName, type ProcInfo } from '../../src/lib/process-table.js';
import { peerPidFromSs, tcpPeerPidFromSs } from '../../src/lib/socket-peer.js';

const PTS3 = (136 << 8) | 3; // /dev/pts/3
const PTS7 = (136 << 8) | 7;

/** A machine: the person's shell on pts/3; klaude's foreground claude (pid 20) on pts/7 with its Bash child. */
function table(extra: ProcInfo[] = []): Map<number, ProcInfo> {
  const rows: ProcInfo[] = [
    { pid: 1, ppid: 0, pgrp: 1, tty: 0, tpgid: -1 },
    { pid: 10, ppid: 1, pgrp: 10, tty: PTS3, tpgid: 11 }, // the person's shell
    { pid: 11, ppid: 10, pgrp: 11, tty: PTS3, tpgid: 11 }, // `klaude approve` in its foreground
    { pid: 12, ppid: 10, pgrp: 12, tty: PTS3, tpgid: 11 }, // a background job of that shell
    { pid: 18, ppid: 1, pgrp: 18, tty: PTS7, tpgid: 19 }, // another shell, running klaude
    { pid: 19, ppid: 18, pgrp: 19, tty: PTS7, tpgid: 19 }, // the klaude supervisor (dashboard)
    { pid: 20, ppid: 19, pgrp: 19, tty: PTS7, tpgid: 19 }, // its foreground claude
    { pid: 21, ppid: 20, pgrp: 19, tty: PTS7, tpgid: 19 }, // claude's Bash: `env -u CLAUDECODE klaude approve`
    { pid: 30, ppid: 1, pgrp: 30, tty: 0, tpgid: -1 }, // a headless runtime
    { pid: 31, ppid: 30, pgrp: 31, tty: 0, tpgid: -1 }, // its claude -p
    { pid: 32, ppid: 31, pgrp: 31, tty: 0, tpgid: -1 }, // that claude's Bash
    ...extra,
  ];
  return new Map(rows.map((r) => [r.pid, r]));
}
const roots = new Map([
  [20, 'claude'],
  [30, 'agent runtime'],
  [31, 'claude'],
]);
const who = (pid: number | null, t = table()) => classifyAnswerer({ pid, table: t, roots, dashboards: new Set([19]) });

describe('classifyAnswerer', () => {
  it("counts a terminal of the person's own, in its foreground, as the person", () => {
    expect(who(11)).toEqual({ person: true, by: 'person at /dev/pts/3' });
  });

  it('counts a running klaude instance (the dashboard) as the person', () => {
    expect(who(19)).toEqual({ person: true, by: 'person in the dashboard' });
  });

  it("counts this home's running web server as the person, unless it runs inside an agent", () => {
    const t = table([
      { pid: 50, ppid: 1, pgrp: 50, tty: 0, tpgid: -1 }, // `klaude __web`, detached
      { pid: 51, ppid: 32, pgrp: 51, tty: 0, tpgid: -1 }, // a web server an agent's Bash started
    ]);
    const web = (pid: number, server: number | null) =>
      classifyAnswerer({ pid, table: t, roots, dashboards: new Set([19]), web: server });
    expect(web(50, 50)).toEqual({ person: true, by: 'person (web)' });
    expect(web(50, null)).toMatchObject({ person: false, why: 'it was not sent from an interactive terminal' });
    expect(web(51, 51)).toMatchObject({ person: false, by: 'agent (pid 51, inside claude pid 31)' });
  });

  it('refuses a descendant of a claude klaude launched, whatever its environment, and says whose', () => {
    expect(who(21)).toMatchObject({ person: false, by: 'agent (pid 21, inside claude pid 20)' });
    expect(who(32)).toMatchObject({ person: false, by: 'agent (pid 32, inside claude pid 31)' });
  });

  it("refuses a process that slipped its ancestry but still sits on the foreground claude's terminal", () => {
    const t = table([{ pid: 40, ppid: 1, pgrp: 19, tty: PTS7, tpgid: 19 }]);
    expect(who(40, t)).toMatchObject({
      person: false,
      why: expect.stringContaining('a terminal a claude klaude launched runs on'),
    });
  });

  it('refuses a process with no terminal (setsid, a pipe) or in the background', () => {
    const t = table([{ pid: 41, ppid: 1, pgrp: 41, tty: 0, tpgid: -1 }]);
    expect(who(41, t)).toMatchObject({ person: false, why: expect.stringContaining('interactive terminal') });
    expect(who(12)).toMatchObject({ person: false, why: expect.stringContaining('foreground') });
  });

  it('refuses an unknown sender', () => {
    expect(who(null)).toMatchObject({ person: false, by: 'unknown' });
    expect(who(999)).toMatchObject({ person: false, by: 'unknown' });
  });
});

describe('verdictOf: inside an agent, for the web sign-in link and sign-in', () => {
  it("places the person's shell and a process with no terminal; refuses agents, their terminals and the unknown", () => {
    const t = table([
      { pid: 40, ppid: 1, pgrp: 19, tty: PTS7, tpgid: 19 }, // slipped its ancestry, on the foreground claude's terminal
      { pid: 41, ppid: 1, pgrp: 41, tty: 0, tpgid: -1 }, // no terminal, no agent above it
    ]);
    expect(verdictOf(t, roots, 11)).toEqual({ inside: false, place: 'at /dev/pts/3' });
    expect(verdictOf(t, roots, 41)).toEqual({ inside: false, place: 'with no terminal (pid 41)' });
    expect(verdictOf(t, roots, 21)).toEqual({
      inside: true,
      by: 'agent (pid 21, inside claude pid 20)',
      why: 'it runs inside an agent (a process a claude klaude launched started)',
    });
    expect(verdictOf(t, roots, 32)).toMatchObject({ inside: true, by: 'agent (pid 32, inside claude pid 31)' });
    expect(verdictOf(t, roots, 40)).toMatchObject({
      inside: true,
      why: expect.stringMatching(/^it runs on a terminal a claude/),
    });
    expect(verdictOf(t, roots, 999)).toMatchObject({ inside: true, why: expect.stringContaining('cannot read') });
    expect(verdictOf(null, roots, 11)).toMatchObject({ inside: true });
  });
});

describe('process table and socket peer', () => {
  it('parses /proc stat lines whose command holds spaces and parentheses', () => {
    const line = '123 (my (odd) cmd) S 45 123 45 34819 123 4194304 0 0 0 0';
    expect(parseStat(123, line)).toEqual({ pid: 123, ppid: 45, pgrp: 123, tty: 34819, tpgid: 123 });
  });

  it('parses ps -axo output; ?? is no terminal', () => {
    const t = parsePs('  1     0     1     0 ??\n 500   1   500   500 ttys003\n');
    expect(t.get(1)!.tty).toBe('');
    expect(t.get(500)).toEqual({ pid: 500, ppid: 1, pgrp: 500, tpgid: 500, tty: 'ttys003' });
    expect(ttyName('ttys003')).toBe('/dev/ttys003');
  });

  it('names pseudo-terminals and walks ancestry without looping', () => {
    expect(ttyName(PTS3)).toBe('/dev/pts/3');
    expect(ttyName((137 << 8) | 2)).toBe('/dev/pts/258');
    expect(ancestry(table(), 21)).toEqual([21, 20, 19, 18, 1]);
    const loop = new Map([
      [5, { pid: 5, ppid: 6, pgrp: 5, tty: 0, tpgid: -1 }],
      [6, { pid: 6, ppid: 5, pgrp: 6, tty: 0, tpgid: -1 }],
    ]);
    expect(ancestry(loop, 5)).toEqual([5, 6]);
  });

  it("finds the client's pid in ss output by the server socket's inode", () => {
    const out = [
      'u_str ESTAB 0 0 * 362999 * 363000 users:(("node",pid=16346,fd=20))',
      'u_str ESTAB 0 0 /tmp/s.sock 363000 * 362999 users:(("node",pid=16000,fd=21))',
      'u_str ESTAB 0 0 * 1 * 2 users:(("x",pid=1,fd=3))',
    ].join('\n');
    expect(peerPidFromSs(out, '363000')).toBe(16346);
    expect(peerPidFromSs(out, '999')).toBeNull();
  });

  it("finds a TCP client's pid in ss output by the connection's two ends, in any address spelling", () => {
    const out = [
      'ESTAB 0 0 127.0.0.1:58166 127.0.0.1:7878 users:(("curl",pid=26395,fd=5))',
      'ESTAB 0 0 127.0.0.1:7878 127.0.0.1:58166 users:(("node",pid=100,fd=21))',
      'ESTAB 0 0 [::ffff:127.0.0.1]:40000 [::ffff:127.0.0.1]:7878 users:(("chromium",pid=300,fd=9))',
    ].join('\n');
    const server = { addr: '127.0.0.1', port: 7878 };
    expect(tcpPeerPidFromSs(out, { addr: '127.0.0.1', port: 58166 }, server)).toBe(26395);
    expect(
      tcpPeerPidFromSs(out, { addr: '::ffff:127.0.0.1', port: 40000 }, { addr: '::ffff:127.0.0.1', port: 7878 }),
    ).toBe(300);
    expect(tcpPeerPidFromSs(out, { addr: '10.0.0.5', port: 58166 }, server)).toBeNull();
  });
});
