// Run directories outside KLAUDE_HOME (a predictable /tmp/klaude-<uid>-<hash>) follow tmux's rule:
// created by klaude, owned by the user, 0700, not a symlink — else E_INSECURE_RUNDIR; clients
// refuse a socket owned by someone else. Real sockets, real chown (the other-user cases need root).
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runDir, socketPath } from '../../src/config/paths.js';
import { controlRequest } from '../../src/control/client.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { isKlaudeError } from '../../src/lib/errors.js';
import { connectPty } from '../../src/pty/host-client.js';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const OTHER_UID = 65534; // nobody

let home: TempHome | undefined;
let run: string | undefined;
const servers: ControlServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  if (run) rmSync(run, { recursive: true, force: true });
  home?.cleanup();
  home = run = undefined;
});

/** A temp home whose KLAUDE_HOME is long enough that sockets move to the outside run dir. */
function longHome(): { h: TempHome; env: Record<string, string>; rd: string } {
  const h = (home = makeTempHome());
  const klaudeHome = path.join(h.root, 'a-rather-long-klaude-home-directory-name-to-push-socket-paths', 'k');
  mkdirSync(klaudeHome, { recursive: true, mode: 0o700 });
  const env = { ...h.env, KLAUDE_HOME: klaudeHome };
  const rd = (run = runDir(klaudeHome, env));
  expect(path.basename(rd)).toMatch(/^klaude-\d+-[0-9a-f]{8}$/);
  expect(rd.startsWith(klaudeHome)).toBe(false);
  return { h, env, rd };
}

const ping = () => ({ pong: true as const, instanceId: 'i', pid: process.pid, version: '0', protocol: 1 });

async function listenErr(sock: string): Promise<unknown> {
  try {
    servers.push(await startControlServer({ socketPath: sock, handlers: { ping } }));
    return null;
  } catch (e) {
    return e;
  }
}

describe('run directory outside KLAUDE_HOME', () => {
  it('is created by klaude 0700 and used', async () => {
    const { env, rd } = longHome();
    const sock = socketPath(env.KLAUDE_HOME!, 'a'.repeat(24), '01HZZZZZZZZZZZZZZZZZZZZZZZ', env);
    expect(await listenErr(sock)).toBeNull();
    expect(lstatSync(rd).mode & 0o777).toBe(0o700);
    expect(await controlRequest(sock, 'ping', {})).toMatchObject({ pong: true });
  });

  it.each([
    [
      'pre-created with mode 0777',
      (rd: string) => {
        mkdirSync(rd);
        chmodSync(rd, 0o777);
      },
      /mode is 0777, not 0700/,
    ],
    [
      'a symlink to a directory',
      (rd: string) => {
        mkdirSync(`${rd}-target`, { mode: 0o700 });
        symlinkSync(`${rd}-target`, rd);
      },
      /is a symlink/,
    ],
  ])('is refused when %s (E_INSECURE_RUNDIR), and left as it was', async (_name, make, why) => {
    const { env, rd } = longHome();
    make(rd);
    const before = lstatSync(rd);
    const err = await listenErr(socketPath(env.KLAUDE_HOME!, 'a'.repeat(24), '01HZZZZZZZZZZZZZZZZZZZZZZZ', env));
    expect(isKlaudeError(err) && err.code).toBe('E_INSECURE_RUNDIR');
    expect((err as Error).message).toMatch(why);
    expect(lstatSync(rd).mode).toBe(before.mode); // never chmod'ed into shape
    rmSync(`${rd}-target`, { recursive: true, force: true });
  });

  it.skipIf(!isRoot)('is refused when another user created it (needs root to chown)', async () => {
    const { env, rd } = longHome();
    mkdirSync(rd, { mode: 0o700 });
    chownSync(rd, OTHER_UID, OTHER_UID);
    const err = await listenErr(socketPath(env.KLAUDE_HOME!, 'a'.repeat(24), '01HZZZZZZZZZZZZZZZZZZZZZZZ', env));
    expect(isKlaudeError(err) && err.code).toBe('E_INSECURE_RUNDIR');
    expect((err as Error).message).toMatch(/belongs to another user \(uid 65534\)/);
  });

  it.skipIf(!isRoot)(
    '`klaude start` refuses it from the CLI in one line (no prompt goes to a stranger’s socket)',
    async () => {
      const { h, env, rd } = longHome();
      mkdirSync(rd, { mode: 0o700 });
      chownSync(rd, OTHER_UID, OTHER_UID);
      const r = await runKlaude(['start', 'general', 'secret prompt', '-d'], { env, cwd: h.projectDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /^klaude: refusing the run directory .* belongs to another user \(uid 65534\) \[E_INSECURE_RUNDIR\]/,
      );
    },
  );

  it.skipIf(!isRoot)('clients refuse a control or PTY socket owned by another user', async () => {
    const { env } = longHome();
    const sock = socketPath(env.KLAUDE_HOME!, 'a'.repeat(24), '01HZZZZZZZZZZZZZZZZZZZZZZZ', env);
    expect(await listenErr(sock)).toBeNull();
    chownSync(sock, OTHER_UID, OTHER_UID);
    const err = await controlRequest(sock, 'ping', {}).catch((e: unknown) => e);
    expect(isKlaudeError(err) && err.code).toBe('E_INSECURE_RUNDIR');
    const perr = await connectPty(sock, { mode: 'view' }).catch((e: unknown) => e);
    expect(isKlaudeError(perr) && perr.code).toBe('E_INSECURE_RUNDIR');
    expect(existsSync(sock)).toBe(true);
  });
});
