/**
 * Where a zone's local pieces live: the link's socket and ssh's multiplexing socket under the run
 * dir (short paths: a Unix socket path has a length limit), its state (the outbox of messages
 * waiting for the link) under the home. docs/zones.md.
 */
import path from 'node:path';
import { runDir } from '../config/paths.js';

/** `<run>/zones`: the links' sockets and ssh's ControlPath sockets (0700, ours). */
export function zonesRunDir(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(runDir(home, env), 'zones');
}

/** The socket of `klaude __zone-link <zone>`: listening on it is that link's lock. */
export function zoneLinkSocket(home: string, zone: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(zonesRunDir(home, env), `${zone}.sock`);
}

/** ssh's ControlPath for every zone of this home (`%C`: a hash of host, port, user: one master each). */
export function zoneControlPath(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(zonesRunDir(home, env), 'cm-%C');
}

/** `<home>/zones/<zone>`: the zone's state on this machine (its outbox). */
export function zoneStateDir(home: string, zone: string): string {
  return path.join(home, 'zones', zone);
}
