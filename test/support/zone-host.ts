// A zone for the tests: a second machine, made on this one (docs/zones.md "How it is tested").
// A network namespace of its own with two veth pairs — one that carries ssh (the "link": the test
// takes it down and up), one that carries the Messages-API stand-in (so cutting the link does not
// cut the zone's own network) — Debian's real sshd listening in it on its own address, and a
// second Unix user made for the test, logged in with a key made for the test. The zone runs this
// checkout's built klaude (dist/, readable by every user) and the pinned claude.
//
// Needs root (ip netns, useradd) and /usr/sbin/sshd (`.ci/run` installs openssh-server).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_BIN } from './claude-bin.js';
import { makeTempHome } from './temp-home.js';

import { KLAUDE_CLI } from './klaude-bin.js';
export const SSHD = '/usr/sbin/sshd';

/** Addresses for one zone: picked when the test file loads, so the stand-in can listen on `apiHost` before the zone exists. */
export interface ZonePlan {
  id: string;
  ns: string;
  /** This machine's end of the ssh veth, and the zone's. */
  linkHost: string;
  linkZone: string;
  /** This machine's end of the API veth (the stand-in listens here), and the zone's. */
  apiHost: string;
  apiZone: string;
  user: string;
}

function rand(n: number): number {
  return Math.floor(Math.random() * n);
}

export function planZone(): ZonePlan {
  const id = `${rand(0xffff).toString(16).padStart(4, '0')}${rand(0xff).toString(16).padStart(2, '0')}`;
  const a = 16 + rand(200);
  const b = rand(63) * 4;
  return {
    id,
    ns: `kz-${id}`,
    linkHost: `10.${a}.${b}.1`,
    linkZone: `10.${a}.${b}.2`,
    apiHost: `10.${a}.${b + 1}.1`,
    apiZone: `10.${a}.${b + 1}.2`,
    user: `kz${id}`,
  };
}

function sh(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Whether this machine can host a zone (root, sshd, ip netns): tests say why not instead of skipping. */
export function zoneHostProblem(): string | null {
  if (process.getuid?.() !== 0) return 'zone tests need root (ip netns, useradd)';
  if (!existsSync(SSHD)) return `zone tests need ${SSHD} (apt-get install openssh-server; .ci/run does)`;
  if (spawnSync('ip', ['netns', 'list']).status !== 0) return 'zone tests need `ip netns` (iproute2)';
  return null;
}

export interface ZoneHost {
  plan: ZonePlan;
  /** The zone user's home (/home/<user>). */
  userHome: string;
  /** The project's clone over there. */
  clone: string;
  /** The ssh config file this machine's klaude uses for the zone (`-F`), and its Host alias. */
  sshConfig: string;
  alias: string;
  /**
   * `zones:` YAML for a klaude home here (name `build` unless given). Its ssh keep-alives come every
   * second (a cut link is noticed in ~3 s) unless `keepAlive: 'default'` (ssh's own, every 15 s).
   */
  zoneYaml(name?: string, extra?: string, o?: { keepAlive?: 'fast' | 'default' }): string;
  /** GIT_SSH_COMMAND for the test's own git over ssh to the zone. */
  gitSsh: string;
  /** Run a command as the zone's user (on this machine's side of the namespace: files, git). */
  asUser(cmd: string, args: string[], cwd?: string): string;
  /** Run klaude as the zone's user over there, in its clone (its own KLAUDE_HOME). */
  zoneKlaude(args: string[]): string;
  /** The zone's klaude home. */
  zoneHome: string;
  /** Take the ssh link's interface in the namespace down, or up again. */
  linkDown(): void;
  linkUp(): void;
  /** Bytes and packets through this machine's end of the ssh link so far (its veth's counters). */
  linkCounters(): { rxBytes: number; txBytes: number; rxPackets: number; txPackets: number };
  /** Pids of every process of the zone's user (its runtimes, claudes, serves, sshd sessions). */
  userPids(): number[];
  /** SIGKILL every process of the zone's user: the machine "reboots" (its sshd stays). */
  killUser(): void;
  close(): void;
}

function writeSshd(dir: string, plan: ZonePlan): string {
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `ListenAddress ${plan.linkZone}`,
      'Port 22',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitUserEnvironment yes',
      `AllowUsers ${plan.user}`,
      'MaxSessions 100',
      'MaxStartups 100',
      // A client that vanished (the link cut) is noticed, so its serve ends.
      'ClientAliveInterval 2',
      'ClientAliveCountMax 3',
      '',
    ].join('\n'),
  );
  return cfg;
}

/** The namespace and its two veth pairs; returns what removes them. Made before the stand-in listens on `apiHost`. */
export function makeZoneNetwork(plan: ZonePlan): () => void {
  makeNamespace(plan);
  return () => sh('ip', ['netns', 'delete', plan.ns]);
}

function makeNamespace(plan: ZonePlan): void {
  const { ns, id } = plan;
  sh('ip', ['netns', 'add', ns]);
  const pairs: [string, string, string, string][] = [
    [`kzl${id}`, `kzL${id}`, plan.linkHost, plan.linkZone],
    [`kza${id}`, `kzA${id}`, plan.apiHost, plan.apiZone],
  ];
  for (const [here, there, hostAddr, zoneAddr] of pairs) {
    sh('ip', ['link', 'add', here, 'type', 'veth', 'peer', 'name', there]);
    sh('ip', ['link', 'set', there, 'netns', ns]);
    sh('ip', ['addr', 'add', `${hostAddr}/30`, 'dev', here]);
    sh('ip', ['link', 'set', here, 'up']);
    sh('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${zoneAddr}/30`, 'dev', there]);
    sh('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', there, 'up']);
  }
  sh('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
}

/** The zone user's files: key, environment (the stand-in, its klaude home), klaude config, claude's onboarding. */
function makeUser(
  plan: ZonePlan,
  pubKey: string,
  apiUrl: string,
): { userHome: string; zoneHome: string; clone: string } {
  sh('useradd', ['-m', '-s', '/bin/sh', plan.user]);
  sh('usermod', ['-p', '*', plan.user]); // no password, not locked: key login only
  const userHome = `/home/${plan.user}`;
  const zoneHome = join(userHome, '.klaude');
  const clone = join(userHome, 'proj');
  const ssh = join(userHome, '.ssh');
  mkdirSync(ssh, { mode: 0o700 });
  writeFileSync(join(ssh, 'authorized_keys'), pubKey, { mode: 0o600 });
  const t = makeTempHome({ baseUrl: apiUrl });
  try {
    const pick = Object.entries(t.env).filter(([k]) => /^(ANTHROPIC_|CLAUDE_CODE_|DISABLE_)/.test(k));
    // A /tmp of its own, as another machine has: claude names its shell's cwd file /tmp/claude-<4 hex>-cwd,
    // and one left there by this machine's own claude runs (root's) would refuse the zone user's.
    const tmp = join(userHome, 'tmp');
    mkdirSync(tmp, { mode: 0o700 });
    const env = [...pick, ['KLAUDE_HOME', zoneHome], ['TMPDIR', tmp], ['PATH', '/usr/local/bin:/usr/bin:/bin']];
    writeFileSync(join(ssh, 'environment'), `${env.map(([k, v]) => `${k}=${v}`).join('\n')}\n`, { mode: 0o600 });
    copyFileSync(t.claudeJsonPath, join(userHome, '.claude.json'));
    mkdirSync(join(userHome, '.claude'), { recursive: true });
    const settings = join(t.home, '.claude', 'settings.json');
    if (existsSync(settings)) copyFileSync(settings, join(userHome, '.claude', 'settings.json'));
  } finally {
    t.cleanup();
  }
  mkdirSync(zoneHome, { mode: 0o700 });
  writeFileSync(join(zoneHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\nnotify:\n  desktop: false\n`);
  sh('chown', ['-R', `${plan.user}:${plan.user}`, userHome]);
  return { userHome, zoneHome, clone };
}

async function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = net.connect(port, host);
    s.once('connect', () => (s.destroy(), r(true)));
    s.once('error', () => r(false));
  });
}

function uidOf(user: string): number {
  return Number(sh('id', ['-u', user]).trim());
}

function pidsOfUid(uid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (statSync(`/proc/${d}`).uid === uid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Make the zone in its network (makeZoneNetwork): user, keys, sshd. `apiUrl`: the stand-in's URL
 * on `plan.apiHost`.
 */
export async function startZoneHost(plan: ZonePlan, apiUrl: string): Promise<ZoneHost> {
  const dir = mkdtempSync(join(tmpdir(), `kz-${plan.id}-`));
  chmodSync(dir, 0o700);
  let sshd: ChildProcess | null = null;
  const cleanups: (() => void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const close = (): void => {
    for (const c of cleanups.reverse()) {
      try {
        c();
      } catch {
        /* best effort: the next one still runs */
      }
    }
  };
  try {
    sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host_key')]);
    sh('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'client_key')]);
    const apiZoneUrl = apiUrl; // the stand-in listens on plan.apiHost, which the namespace reaches over its API veth
    const { userHome, zoneHome, clone } = makeUser(plan, readFileSync(join(dir, 'client_key.pub'), 'utf8'), apiZoneUrl);
    const uid = uidOf(plan.user);
    cleanups.push(() => sh('userdel', ['-r', '-f', plan.user]));
    cleanups.push(() => pidsOfUid(uid).forEach((p) => kill(p)));
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const cfg = writeSshd(dir, plan);
    sshd = spawn('ip', ['netns', 'exec', plan.ns, SSHD, '-D', '-e', '-f', cfg], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let sshdLog = '';
    sshd.stderr!.on('data', (d: Buffer) => (sshdLog = (sshdLog + d.toString()).slice(-8000)));
    cleanups.push(() => sshd?.kill('SIGKILL'));
    const deadline = Date.now() + 15_000;
    while (!(await reachable(plan.linkZone, 22))) {
      if (Date.now() > deadline) throw new Error(`sshd did not listen on ${plan.linkZone}: ${sshdLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const alias = `zone-${plan.id}`;
    const sshConfig = join(dir, 'ssh_config');
    writeFileSync(
      sshConfig,
      [
        `Host ${alias}`,
        `  HostName ${plan.linkZone}`,
        `  User ${plan.user}`,
        `  IdentityFile ${join(dir, 'client_key')}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
        '',
      ].join('\n'),
    );
    const asUser = (cmd: string, args: string[], cwd?: string): string =>
      sh('runuser', [
        '-u',
        plan.user,
        '--',
        'sh',
        '-c',
        `cd ${JSON.stringify(cwd ?? userHome)} && exec "$@"`,
        'sh',
        cmd,
        ...args,
      ]);
    return {
      plan,
      userHome,
      clone,
      sshConfig,
      alias,
      zoneHome,
      gitSsh: `ssh -F ${sshConfig}`,
      zoneYaml: (name = 'build', extra = '', o = {}) => {
        // ssh's keep-alives every second: a cut link is noticed in ~3 s, not ~45 s.
        const fast = o.keepAlive === 'default' ? '' : ', "-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=3"';
        return [
          'zones:',
          `  ${name}:`,
          `    ssh: ${alias}`,
          '    path: ~/proj',
          `    klaude: node ${KLAUDE_CLI}`,
          `    sshOptions: ["-F", "${sshConfig}"${fast}, "-o", "ConnectTimeout=3"]`,
          extra,
        ].join('\n');
      },
      asUser,
      zoneKlaude: (args) =>
        sh('runuser', [
          '-u',
          plan.user,
          '--',
          'env',
          `HOME=${userHome}`,
          `KLAUDE_HOME=${zoneHome}`,
          'node',
          KLAUDE_CLI,
          ...args,
        ]),
      linkDown: () => sh('ip', ['netns', 'exec', plan.ns, 'ip', 'link', 'set', `kzL${plan.id}`, 'down']),
      linkUp: () => sh('ip', ['netns', 'exec', plan.ns, 'ip', 'link', 'set', `kzL${plan.id}`, 'up']),
      linkCounters: () => {
        const read = (f: string): number =>
          Number(readFileSync(`/sys/class/net/kzl${plan.id}/statistics/${f}`, 'utf8'));
        return {
          rxBytes: read('rx_bytes'),
          txBytes: read('tx_bytes'),
          rxPackets: read('rx_packets'),
          txPackets: read('tx_packets'),
        };
      },
      userPids: () => pidsOfUid(uid),
      killUser: () => pidsOfUid(uid).forEach((p) => kill(p)),
      close,
    };
  } catch (e) {
    close();
    throw e;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/**
 * A git repository in `dir` with one commit, and its clone in the zone (pushed over the test's
 * ssh, checked out there on main; a later project replaces the clone's history).
 */
export function cloneToZone(z: ZoneHost, dir: string): void {
  const git = (args: string[], env: NodeJS.ProcessEnv = process.env): string => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  if (!existsSync(join(dir, '.git'))) {
    git(['init', '-q', '-b', 'main']);
    git(['config', 'user.email', 'test@example.com']);
    git(['config', 'user.name', 'test']);
    writeFileSync(join(dir, 'README.md'), '# the project\n');
    git(['add', '-A']);
    git(['commit', '-q', '-m', 'first']);
  }
  if (!existsSync(z.clone)) {
    z.asUser('git', ['init', '-q', '-b', 'main', z.clone]);
    z.asUser('git', ['config', 'receive.denyCurrentBranch', 'updateInstead'], z.clone);
    z.asUser('git', ['config', 'user.email', 'zone@example.com'], z.clone);
    z.asUser('git', ['config', 'user.name', 'zone'], z.clone);
  }
  // Each test's project is a repository of its own: the clone takes its history whole.
  git(['push', '-q', '--force', `${z.alias}:proj`, 'HEAD:main'], { ...process.env, GIT_SSH_COMMAND: z.gitSsh });
}
