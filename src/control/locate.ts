/**
 * Which supervisor a client command talks to: the one that launched us (KLAUDE_SOCKET,
 * set for claude and its Bash tool), an explicit --instance, or the only live one in
 * this project.
 */
import { existsSync } from 'node:fs';
import { projectHash, projectRoot } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { KlaudeError } from '../lib/errors.js';
import { findLiveSupervisors } from './discovery.js';

export async function locateSupervisor(opts: {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  instance?: string;
}): Promise<string> {
  const { env } = opts;
  if (!opts.instance && env.KLAUDE_SOCKET && existsSync(env.KLAUDE_SOCKET)) return env.KLAUDE_SOCKET;
  const hash = env.KLAUDE_PROJECT_HASH || projectHash(projectRoot(opts.cwd));
  const live = await findLiveSupervisors(opts.home, hash, { env });
  if (opts.instance) {
    const wanted = opts.instance.toUpperCase();
    const hit = live.filter(
      (l) =>
        l.instanceId.startsWith(wanted) || l.instanceId.endsWith(wanted) || shortId(l.instanceId).startsWith(wanted),
    );
    if (hit.length === 1) return hit[0]!.socketPath;
    throw new KlaudeError('E_NO_SUPERVISOR', `no single running klaude matches instance '${opts.instance}'`, {
      hint: '`klaude instances` lists them',
    });
  }
  if (live.length === 1) return live[0]!.socketPath;
  if (live.length === 0) {
    throw new KlaudeError('E_NO_SUPERVISOR', 'no klaude is running in this project', {
      hint: 'start one with `klaude` (or `klaude ui`) in this project',
    });
  }
  throw new KlaudeError('E_USAGE', `${live.length} klaude supervisors run in this project`, {
    hint: `pick one with --instance <id>: ${live.map((l) => shortId(l.instanceId)).join(', ')}`,
  });
}
