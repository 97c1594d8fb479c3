import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runDir, socketPath } from '../../src/config/paths.js';
import { findLiveSupervisors, listSocketFiles } from '../../src/control/discovery.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';

const dirs: string[] = [];
const servers: ControlServer[] = [];
const HASH = 'abcdef0123456789abcdef01';

function tmpHome(): string {
  const dir = fs.mkdtempSync('/tmp/kc-');
  dirs.push(dir);
  return dir;
}

async function supervisor(home: string, instanceId: string, answer = true): Promise<ControlServer> {
  const server = await startControlServer({
    socketPath: socketPath(home, HASH, instanceId, {}),
    handlers: {
      ping: () =>
        answer
          ? { pong: true, instanceId, pid: process.pid, version: '0.1.0', protocol: 1 }
          : new Promise(() => undefined),
    },
    closeGraceMs: 100,
  });
  servers.push(server);
  return server;
}

/** A socket file whose listener was SIGKILLed. */
async function staleSocket(file: string): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const child = spawn(
    process.execPath,
    ['-e', "require('net').createServer().listen(process.argv[1], () => console.log('ready'))", file],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()),
  );
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('control discovery', () => {
  it('lists nothing for a project without a run dir', async () => {
    const home = tmpHome();
    expect(listSocketFiles(path.join(runDir(home, {}), HASH))).toEqual([]);
    expect(await findLiveSupervisors(home, HASH, { env: {} })).toEqual([]);
  });

  it('finds the live supervisors, removes stale sockets, leaves unresponsive ones and other files', async () => {
    const home = tmpHome();
    const dir = path.join(runDir(home, {}), HASH);
    await supervisor(home, '01AAAAAAAAAAAAAAAAAAAAAAAA');
    await supervisor(home, '01BBBBBBBBBBBBBBBBBBBBBBBB');
    const hung = await supervisor(home, '01CCCCCCCCCCCCCCCCCCCCCCCC', false);
    const stale = path.join(dir, '01DDDDDDDDDDDDDDDDDDDDDDDD.sock');
    await staleSocket(stale);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a socket');
    // another project's supervisor is not ours
    const otherHome = home;
    const other = await startControlServer({
      socketPath: socketPath(otherHome, 'f'.repeat(24), '01EEEEEEEEEEEEEEEEEEEEEEEE', {}),
      handlers: { ping: () => ({ pong: true, instanceId: 'x', pid: 1, version: '0', protocol: 1 }) },
    });
    servers.push(other);

    expect(listSocketFiles(dir).map((f) => path.basename(f))).toEqual([
      '01AAAAAAAAAAAAAAAAAAAAAAAA.sock',
      '01BBBBBBBBBBBBBBBBBBBBBBBB.sock',
      '01CCCCCCCCCCCCCCCCCCCCCCCC.sock',
      '01DDDDDDDDDDDDDDDDDDDDDDDD.sock',
    ]);

    const live = await findLiveSupervisors(home, HASH, { env: {}, timeoutMs: 300 });
    expect(live.map((s) => s.instanceId)).toEqual(['01AAAAAAAAAAAAAAAAAAAAAAAA', '01BBBBBBBBBBBBBBBBBBBBBBBB']);
    expect(live[0]?.ping).toMatchObject({ pong: true, instanceId: '01AAAAAAAAAAAAAAAAAAAAAAAA', pid: process.pid });
    expect(live[0]?.socketPath).toBe(path.join(dir, '01AAAAAAAAAAAAAAAAAAAAAAAA.sock'));

    expect(fs.existsSync(stale)).toBe(false); // refused → removed
    expect(fs.existsSync(hung.socketPath)).toBe(true); // slow is not dead
    expect(fs.existsSync(path.join(dir, 'notes.txt'))).toBe(true);
  });
});
