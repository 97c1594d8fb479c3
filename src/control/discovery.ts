/**
 * Socket-level view of the supervisors of a project: the `*.sock` files in
 * `<runDir(home)>/<projectHash>/` that answer `ping`. Files nobody listens on any more
 * (connection refused) are removed on the way. The DB's instance registry is the other view.
 */
// node:fs's sync calls, not node:fs/promises: loading that (with the readline it brings) was 2 % of
// a `klaude status`, for one read of a small directory.
import { existsSync, readdirSync, unlinkSync } from 'node:fs';
import { outsideRunDirOf, secureRunDir } from '../lib/secure-dir.js';
import path from 'node:path';
import { runDir } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { controlRequest } from './client.js';
import type { PingResult } from './protocol.js';

export interface LiveSupervisor {
  socketPath: string;
  /** The socket file's name without `.sock` (the supervisor's instance id). */
  instanceId: string;
  ping: PingResult;
}

export interface DiscoveryOptions {
  /** Per-socket ping timeout. Default 500 ms. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** Full paths of the socket files in a project's run directory, sorted; [] when it does not exist. */
export function listSocketFiles(runDirForProject: string): string[] {
  let entries;
  try {
    entries = readdirSync(runDirForProject, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new KlaudeError('E_IO', `cannot read ${runDirForProject}: ${(e as Error).message}`, { cause: e });
  }
  return entries
    .filter((d) => d.name.endsWith('.sock') && d.isSocket())
    .map((d) => path.join(runDirForProject, d.name))
    .sort();
}

/**
 * Ping every socket of the project in parallel. Live ones are returned (sorted by path);
 * refused ones are unlinked; ones that time out or fail otherwise are left alone and skipped.
 */
export async function findLiveSupervisors(
  home: string,
  projectHash: string,
  opts: DiscoveryOptions = {},
): Promise<LiveSupervisor[]> {
  const dir = path.join(runDir(home, opts.env), projectHash);
  // An outside-home run dir someone else made (or a symlink, or 0777) is refused, loudly: a
  // supervisor found there could be anyone's.
  const outside = outsideRunDirOf(dir);
  if (outside && existsSync(outside)) secureRunDir(outside);
  const sockets = listSocketFiles(dir);
  const probed = await Promise.all(
    sockets.map(async (socketPath): Promise<LiveSupervisor | null> => {
      try {
        const ping = await controlRequest(socketPath, 'ping', {}, { timeoutMs: opts.timeoutMs ?? 500 });
        return { socketPath, instanceId: path.basename(socketPath, '.sock'), ping };
      } catch (e) {
        if (e instanceof KlaudeError && e.code === 'E_NO_SUPERVISOR') {
          try {
            unlinkSync(socketPath);
          } catch {
            // gone already
          }
        }
        return null;
      }
    }),
  );
  return probed.filter((s): s is LiveSupervisor => s !== null);
}
