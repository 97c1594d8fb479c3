/**
 * What the machine under klaude does that its guarantees depend on: how soon its init reaps a dead
 * orphan (klaude's runtimes are orphans once their starter exits), and whether the process at the
 * other end of a Unix socket can be asked (an answer to a permission request is counted as the
 * person's only when it can). Both are measured, not guessed from the platform's name.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isAlive, processStartTime, sleep } from '../lib/process.js';
import { SYSTEM_PEER_SOURCE, unixSocketPeer, type PeerSource } from '../lib/socket-peer.js';
import { passed, warned, type CheckResult } from './check.js';

const INIT = 'init';
/** How long an orphan that died is watched for being reaped. */
const REAP_WATCH_MS = 3000;
/** How long the orphan lives: its shell has exited by then. */
const ORPHAN_LIFE_MS = 200;

/**
 * Orphan a process that dies soon after (a shell that leaves `sleep 0.2` behind and exits: the
 * sleep is still alive when it is orphaned, so the shell cannot have reaped it) and time how long
 * its pid stays in the table, as a zombie, once it has died.
 */
export async function checkInitReaping(): Promise<CheckResult> {
  const orphan = await makeOrphan();
  if (orphan === null) return passed(INIT, 'not measured: no /bin/sh to make an orphan with');
  // Compared by start time: a pid reused meanwhile is not the orphan still listed.
  const start = processStartTime(orphan);
  const listed = (): boolean => start !== null && processStartTime(orphan) === start;
  const born = Date.now();
  while (Date.now() - born < ORPHAN_LIFE_MS + REAP_WATCH_MS && listed() && isAlive(orphan)) await sleep(10);
  const t0 = Date.now();
  while (Date.now() - t0 < REAP_WATCH_MS && listed()) await sleep(10);
  const ms = Date.now() - t0;
  if (!listed()) {
    if (ms < 500) return passed(INIT, `reaps dead orphans at once (${ms} ms)`);
    return passed(
      INIT,
      `reaps dead orphans lazily (a zombie for ${ms} ms): klaude counts a zombie as dead, so this costs it nothing; ps lists dead processes (<defunct>) that long`,
    );
  }
  return warned(
    INIT,
    `this machine's init does not reap dead orphans (still a zombie ${REAP_WATCH_MS / 1000} s after it died, as in a container started without --init): klaude counts a zombie as dead, so no death goes unnoticed, but every dead agent CLI, runtime and tool process stays in the process table for good, and the pids run out in the end`,
    'start the container with an init that reaps (docker/podman run --init, or tini as its entrypoint)',
  );
}

/** The pid of an orphan (its parent exited first) that dies ORPHAN_LIFE_MS later, or null when none could be made. */
function makeOrphan(): Promise<number | null> {
  return new Promise((resolve) => {
    let out = '';
    const sh = spawn('/bin/sh', ['-c', `sleep ${ORPHAN_LIFE_MS / 1000} & echo $!`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    sh.stdout.on('data', (d: Buffer) => (out += d.toString()));
    sh.once('error', () => resolve(null));
    sh.once('close', () => {
      const pid = Number(out.trim());
      resolve(Number.isInteger(pid) && pid > 0 ? pid : null);
    });
  });
}

const PEER = 'socket peers';

/**
 * Ask who is at the other end of a connection this process makes to itself: klaude's own answer
 * to "which process sent this?" for every answer to a permission request.
 */
export async function checkSocketPeers(src: PeerSource = SYSTEM_PEER_SOURCE): Promise<CheckResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'klaude-peer-'));
  const sock = path.join(dir, 'p.sock');
  let resolveAccepted: (s: Socket) => void = () => undefined;
  const accepted = new Promise<Socket>((resolve) => (resolveAccepted = resolve));
  const server: Server = createServer((s) => resolveAccepted(s));
  let client: Socket | undefined;
  try {
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(sock, resolve));
    client = createConnection(sock);
    const peer = unixSocketPeer(await accepted, src);
    if (peer.pid === process.pid)
      return passed(PEER, 'the process behind a Unix-socket connection can be asked (ss -xp)');
    const why =
      peer.pid === null
        ? peer.reason === 'gone'
          ? 'ss did not list it'
          : 'no ss or /proc'
        : `ss named pid ${peer.pid}, not this one`;
    return warned(
      PEER,
      `the process behind a Unix-socket connection cannot be asked here (${why}): an answer to a permission request from a terminal (klaude approve/deny) cannot be told from an agent's, so it is refused`,
      'answer in the dashboard (klaude ui) or the web page (klaude web); on Linux, install iproute2 (ss)',
    );
  } finally {
    client?.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
