/**
 * The ssh command lines klaude runs for a zone: the person's own OpenSSH (their ~/.ssh/config, keys
 * and agent), with klaude's multiplexing on top so every command after the first rides one
 * connection (`ControlMaster=auto`, a ControlPath under klaude's run dir, `ControlPersist`), and
 * keep-alives that end a dead connection instead of leaving it hanging. Options given on the
 * command line win over the person's config; their own `sshOptions` come before ours, so they win
 * in turn (ssh keeps the first value it is given of each option).
 *
 * Here, below the PTY clients and the supervisor, because both run a zone's conversation over
 * `ssh -t` (a talk session, `klaude checkout --remote`) as well as the link.
 */
import type { ZoneSpec } from '../config/schema.js';
import { ensurePrivateDir } from '../config/paths.js';
import { shellQuote } from '../lib/shell-quote.js';
import { zoneControlPath, zonesRunDir } from './paths.js';

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

/**
 * The options every ssh klaude runs for a zone gets, before the destination. `tty`: a terminal over
 * there (`-t`, for claude's own screen), else none (`-T`: a byte channel).
 */
export function sshOptions(p: SshPlace, o: { batch: boolean; tty?: boolean }): string[] {
  return [
    ...(p.spec.sshOptions ?? []),
    o.tty ? '-t' : '-T',
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
export function sshArgv(p: SshPlace, command: string, o: { batch: boolean; tty?: boolean }): string[] {
  return [...sshOptions(p, o), '--', p.spec.ssh, command];
}

/** A path for a shell over there: quoted, with a leading `~/` left for that shell to expand. */
export function remotePath(p: string): string {
  return p.startsWith('~/') ? `~/${shellQuote(p.slice(2))}` : p === '~' ? '~' : shellQuote(p);
}

/**
 * `ssh -t <zone> klaude __zone-serve --path <clone> --open <id>`: the agent's conversation in its
 * CLI over there, in its worktree, on a terminal of ssh's (zones/serve-open.ts is that end). The
 * same options as the link's, so it rides the link's master connection; BatchMode too (a talk
 * session runs in the background, where no one sees a passphrase prompt).
 */
export function zoneOpenCommand(p: SshPlace, sessionId: string): { file: string; args: string[] } {
  prepareSsh(p);
  const command = `${remoteKlaude(p.spec)} __zone-serve --path ${shellQuote(p.spec.path)} --open ${shellQuote(sessionId)}`;
  return { file: 'ssh', args: sshArgv(p, command, { batch: true, tty: true }) };
}
