// Zones' pure parts (docs/zones.md): the config's zones, who may answer for a zone's agent, the
// channel's requests and replies, and the ssh command lines.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseZones } from '../../src/config/zones.js';
import { classifyAnswerer } from '../../src/ownership/answerer.js';
import { cameThroughSshd } from '../../src/ownership/zone-serve-record.js';
import type { ProcInfo } from '../../src/lib/process-table.js';
import { Channel, type WireRequest } from '../../src/zones/channel.js';
import { remoteGitUrl, remotePath, serveCommand, sshArgv } from '../../src/zones/ssh.js';
import { fromZoneOf, zoneOf, zoneHeldOf, zoneMovedOf, zoneSuffix } from '../../src/core/zone.js';
import { zoneOpenCommand } from '../../src/zone-client/ssh-args.js';
import { KlaudeError } from '../../src/lib/errors.js';

describe('config zones', () => {
  it('takes zones by name with ssh and path, and more ssh arguments', () => {
    expect(parseZones({ build: { ssh: 'me@box', path: '~/src/p', sshOptions: ['-p', '2222'] } })).toEqual({
      build: { ssh: 'me@box', path: '~/src/p', sshOptions: ['-p', '2222'] },
    });
  });

  it('refuses what ssh would read as an option, unknown fields, and bad names', () => {
    expect(() => parseZones({ x: { ssh: '-oProxyCommand=touch /tmp/x', path: 'p' } })).toThrow(/destination/);
    expect(() => parseZones({ x: { ssh: 'me@box other', path: 'p' } })).toThrow(/destination/);
    expect(() => parseZones({ x: { ssh: 'me@box', path: 'p', port: 22 } })).toThrow(/unknown field 'port'/);
    expect(() => parseZones({ 'a b': { ssh: 'me@box', path: 'p' } })).toThrow(/not a zone name/);
    expect(() => parseZones({ x: { ssh: 'me@box' } })).toThrow(/zones.x.path/);
  });
});

describe('the zone marks of a row', () => {
  it('tells a mirror here from a row over there', () => {
    expect(zoneOf({ metadata: { zone: { name: 'build' } } })).toEqual({ name: 'build' });
    expect(zoneSuffix({ metadata: { zone: { name: 'build' } } })).toBe('@build');
    expect(zoneOf({ metadata: null })).toBeNull();
    expect(zoneHeldOf({ metadata: { zoneHeld: { from: 'laptop' } } })).toEqual({ from: 'laptop' });
  });

  it('says where a conversation `klaude checkout` moved went, on both machines', () => {
    expect(zoneMovedOf({ metadata: { zoneHeld: { from: 'laptop' }, movedTo: { to: 'laptop', at: 5 } } })).toEqual({
      to: 'laptop',
      at: 5,
    });
    expect(zoneMovedOf({ metadata: { zoneHeld: { from: 'laptop' } } })).toBeNull();
    const here = { metadata: { fromZone: { name: 'build', host: 'box', at: 7 } } };
    expect(fromZoneOf(here)).toEqual({ name: 'build', host: 'box', at: 7 });
    expect(zoneOf(here)).toBeNull(); // an agent of this machine now
  });
});

/** A zone machine: sshd (1000) → its session (1001, the user's) → sh → the serve (1003); a runtime (30) and its claude (31) with its Bash (32). */
function zoneTable(): Map<number, ProcInfo> {
  const rows: ProcInfo[] = [
    { pid: 1, ppid: 0, pgrp: 1, tty: 0, tpgid: -1 },
    { pid: 1000, ppid: 1, pgrp: 1000, tty: 0, tpgid: -1 },
    { pid: 1001, ppid: 1000, pgrp: 1000, tty: 0, tpgid: -1 },
    { pid: 1002, ppid: 1001, pgrp: 1002, tty: 0, tpgid: -1 },
    { pid: 1003, ppid: 1002, pgrp: 1002, tty: 0, tpgid: -1 },
    { pid: 30, ppid: 1, pgrp: 30, tty: 0, tpgid: -1 },
    { pid: 31, ppid: 30, pgrp: 31, tty: 0, tpgid: -1 },
    { pid: 32, ppid: 31, pgrp: 31, tty: 0, tpgid: -1 },
    { pid: 40, ppid: 1, pgrp: 40, tty: 0, tpgid: -1 }, // a serve an agent started and let go of
  ];
  return new Map(rows.map((r) => [r.pid, r]));
}
const names: Record<number, string> = { 1000: 'sshd', 1001: 'sshd', 1002: 'sh', 1003: 'node', 40: 'node' };

describe('answers for a zone’s agent', () => {
  const roots = new Map([
    [30, 'agent runtime'],
    [31, 'claude'],
  ]);
  const facts = (pid: number, link: { viaSshd: boolean; onBehalf?: string } | null, held = true) =>
    classifyAnswerer({
      pid,
      table: zoneTable(),
      roots,
      dashboards: new Set(),
      zoneHeld: held,
      zoneLink: link,
    });

  it('come through the zone link, as the person said on their machine', () => {
    expect(cameThroughSshd(zoneTable(), 1003, (p) => names[p] ?? null)).toBe(true);
    expect(facts(1003, { viaSshd: true, onBehalf: 'person at /dev/pts/3' })).toEqual({
      person: true,
      by: 'person at /dev/pts/3, through the zone link',
    });
  });

  it('from a serve that did not come in through sshd, or from anything else over there, are refused', () => {
    expect(cameThroughSshd(zoneTable(), 40, (p) => names[p] ?? null)).toBe(false);
    expect(facts(40, { viaSshd: false })).toMatchObject({ person: false, why: expect.stringContaining('sshd') });
    expect(facts(1002, null)).toMatchObject({ person: false, why: expect.stringContaining('another machine') });
    // Inside an agent is refused first, whatever it claims to be.
    expect(facts(32, { viaSshd: true })).toMatchObject({
      person: false,
      why: expect.stringContaining('inside an agent'),
    });
  });
});

describe('the channel', () => {
  function pair(serve: (r: WireRequest) => unknown): { link: Channel; serveCh: Channel } {
    const up = new PassThrough();
    const down = new PassThrough();
    const serveCh = new Channel(up, down, { request: serve });
    const link = new Channel(down, up, {});
    return { link, serveCh };
  }

  it('answers each request by id, errors as KlaudeErrors with their code', async () => {
    const { link } = pair(async (r) => {
      if (r.op === 'fail') throw new KlaudeError('E_SESSION_NOT_FOUND', 'no such agent', { hint: 'look' });
      await new Promise((res) => setTimeout(res, r.op === 'slow' ? 30 : 0));
      return { op: r.op };
    });
    const [slow, fast] = await Promise.all([link.request('slow'), link.request('fast')]);
    expect([slow, fast]).toEqual([{ op: 'slow' }, { op: 'fast' }]);
    await expect(link.request('fail')).rejects.toMatchObject({ code: 'E_SESSION_NOT_FOUND', hint: 'look' });
  });

  it('fails what is in flight as offline when the other end goes', async () => {
    const { link, serveCh } = pair(() => new Promise(() => undefined));
    const pending = link.request('hang', {}, 0);
    serveCh.close('gone');
    link.close('the channel ended');
    await expect(pending).rejects.toMatchObject({ code: 'E_ZONE_OFFLINE' });
    await expect(link.request('after')).rejects.toMatchObject({ code: 'E_ZONE_OFFLINE' });
  });
});

describe('ssh command lines', () => {
  const place = {
    home: '/h',
    env: { XDG_RUNTIME_DIR: '/run/user/0' },
    spec: { ssh: 'me@box', path: '~/src/my proj', klaude: 'node /opt/k/cli.js', sshOptions: ['-p', '2222'] },
  };

  it('puts the person’s options first (ssh keeps the first), then multiplexing, then the destination after --', () => {
    const argv = sshArgv(place, serveCommand(place.spec), { batch: true });
    expect(argv.slice(0, 2)).toEqual(['-p', '2222']);
    expect(argv).toContain('ControlMaster=auto');
    expect(argv).toContain('BatchMode=yes');
    expect(argv.slice(-3)).toEqual(['--', 'me@box', "node /opt/k/cli.js __zone-serve --path '~/src/my proj'"]);
  });

  it('opens a conversation over there on a terminal of ssh’s, with the link’s options', () => {
    const { file, args } = zoneOpenCommand({ ...place, home: mkdtempSync(join(tmpdir(), 'kz-')) }, '01ABC');
    expect(file).toBe('ssh');
    expect(args).toContain('-t');
    expect(args).not.toContain('-T');
    expect(args).toContain('ControlMaster=auto');
    expect(args).toContain('BatchMode=yes');
    expect(args.slice(-3)).toEqual([
      '--',
      'me@box',
      "node /opt/k/cli.js __zone-serve --path '~/src/my proj' --open 01ABC",
    ]);
    expect(sshArgv(place, 'true', { batch: true })).toContain('-T');
  });

  it('leaves a leading ~/ to the shell over there, and names the clone for git', () => {
    expect(remotePath('~/src/my proj')).toBe("~/'src/my proj'");
    expect(remotePath('/abs/my p')).toBe("'/abs/my p'");
    expect(remoteGitUrl(place.spec)).toBe('me@box:src/my proj');
  });
});
