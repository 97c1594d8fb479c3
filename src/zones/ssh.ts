/**
 * Running ssh for a zone: the link's channel command, git over the same multiplexed connection, one
 * command line over there. The options every such ssh gets are zone-client/ssh-args.ts's.
 */
import { execFile } from 'node:child_process';
import type { ZoneSpec } from '../config/schema.js';
import { shellQuote } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { prepareSsh, remoteKlaude, sshArgv, sshOptions, type SshPlace } from '../zone-client/ssh-args.js';

export {
  CONTROL_PERSIST_S,
  prepareSsh,
  remoteKlaude,
  remotePath,
  sshArgv,
  sshOptions,
  type SshPlace,
} from '../zone-client/ssh-args.js';

/** The channel's command: klaude's serve end in the zone's project. */
export function serveCommand(spec: ZoneSpec): string {
  return `${remoteKlaude(spec)} __zone-serve --path ${shellQuote(spec.path)}`;
}

/** GIT_SSH_COMMAND for git over the same multiplexed connection (git appends the host and its command). */
export function gitSshCommand(p: SshPlace): string {
  return ['ssh', ...sshOptions(p, { batch: true })].map(shellQuote).join(' ');
}

/** The zone's clone as a git URL (scp syntax; `~/x` is x in the home over there). */
export function remoteGitUrl(spec: ZoneSpec): string {
  const path = spec.path.startsWith('~/') ? spec.path.slice(2) : spec.path;
  return `${spec.ssh}:${path}`;
}

export interface SshResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run one shell command line over there; its exit code and output (255: ssh itself failed). */
export function sshRun(
  p: SshPlace,
  command: string,
  o: { batch?: boolean; timeoutMs?: number; input?: string } = {},
): Promise<SshResult> {
  prepareSsh(p);
  return new Promise((resolve, reject) => {
    const child = execFile(
      'ssh',
      sshArgv(p, command, { batch: o.batch ?? true }),
      { env: p.env, timeout: o.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT')
            return reject(
              new KlaudeError('E_ZONE_SETUP', 'ssh is not installed here', {
                hint: 'install OpenSSH (openssh-client)',
              }),
            );
          return resolve({ code: 255, stdout, stderr: stderr || err.message });
        }
        resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
    if (o.input !== undefined) child.stdin?.end(o.input);
  });
}

/** ssh's own complaint, one line (the last one it printed is the reason). */
export function sshWhy(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Warning: Permanently added/.test(l));
  return lines[lines.length - 1] ?? 'ssh failed';
}
