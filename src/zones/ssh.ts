/**
 * ssh command lines for a zone: the person's own OpenSSH (their ~/.ssh/config, keys and agent),
 * with klaude's multiplexing on top so every command after the first rides one connection
 * (`ControlMaster=auto`, a ControlPath under klaude's run dir, `ControlPersist`), and keep-alives
 * that end a dead connection instead of leaving it hanging. Options given on the command line win
 * over the person's config; their own `sshOptions` come before ours, so they win in turn (ssh keeps
 * the first value it is given of each option).
 */
import { execFile } from 'node:child_process';
import type { ZoneSpec } from '../config/schema.js';
import { shellQuote } from '../claude/shim.js';
import { ensurePrivateDir } from '../config/paths.js';
import { zoneControlPath, zonesRunDir } from '../zone-client/paths.js';
import { KlaudeError } from '../lib/errors.js';

/** How long an idle master connection stays up after its last session (s): starts in that window pay no handshake. */
export const CONTROL_PERSIST_S = 600;

export interface SshPlace {
  home: string;
  env: NodeJS.ProcessEnv;
  spec: ZoneSpec;
}

/** The directory of ssh's ControlPath sockets, made (0700) before an ssh runs. */
export function prepareSsh(p: SshPlace): void {
  ensurePrivateDir(zonesRunDir(p.home, p.env));
}

/** The options every ssh klaude runs for a zone gets, before the destination. */
export function sshOptions(p: SshPlace, o: { batch: boolean }): string[] {
  return [
    ...(p.spec.sshOptions ?? []),
    '-T',
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${zoneControlPath(p.home, p.env)}`,
    '-o',
    `ControlPersist=${CONTROL_PERSIST_S}`,
    '-o',
    'ServerAliveInterval=15',
    '-o',
    'ServerAliveCountMax=3',
    '-o',
    'ConnectTimeout=15',
    ...(o.batch ? ['-o', 'BatchMode=yes'] : []),
  ];
}

/** The command that runs klaude over there (a shell word list: `klaude`, `node /opt/k/dist/cli.js`). */
export function remoteKlaude(spec: ZoneSpec): string {
  return spec.klaude ?? 'klaude';
}

/** `ssh … <dest> <command>`: the argv (without `ssh`) that runs a shell command line over there. */
export function sshArgv(p: SshPlace, command: string, o: { batch: boolean }): string[] {
  return [...sshOptions(p, o), '--', p.spec.ssh, command];
}

/** The channel's command: klaude's serve end in the zone's project. */
export function serveCommand(spec: ZoneSpec): string {
  return `${remoteKlaude(spec)} __zone-serve --path ${shellQuote(spec.path)}`;
}

/** A path for a shell over there: quoted, with a leading `~/` left for that shell to expand. */
export function remotePath(p: string): string {
  return p.startsWith('~/') ? `~/${shellQuote(p.slice(2))}` : p === '~' ? '~' : shellQuote(p);
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
