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
import { processStartTime, sleep } from '../lib/process.js';
import { SYSTEM_PEER_SOURCE, unixSocketPeer, type PeerSource } from '../lib/socket-peer.js';
import { passed, warned, type CheckResult } from './check.js';

const INIT = 'init';
/** How long an orphan that died is watched for being reaped. */
const REAP_WATCH_MS = 3000;

/**
 * Orphan a process that dies at once (a shell that leaves `sleep 0` behind and exits) and time how
 * long its pid stays in the table, as a zombie, once it has died.
 */
export async function checkInitReaping(): Promise<CheckResult> {
  const orphan = await makeDeadOrphan();
  if (orphan === null) return passed(INIT, 'not measured: no /bin/sh to make an orphan with');
  const t0 = Date.now();
  // Compared by start time: a pid reused meanwhile is not the orphan still listed.
  const start = processStartTime(orphan);
  const listed = (): boolean => start !== null && processStartTime(orphan) === start;
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

/** The pid of an orphan that has died (its parent exited first), or null when none could be made. */
function makeDeadOrphan(): Promise<number | null> {
  return new Promise((resolve) => {
    let out = '';
    const sh = spawn('/bin/sh', ['-c', 'sleep 0 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'] });
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
