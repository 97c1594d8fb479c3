/**
 * Where a PTY session's host listens: `<runDir>/<projectHash>/p/<sessionId>.sock` (0600 in a 0700
 * directory). A subdirectory, so supervisor discovery (which pings every `*.sock` in
 * `<runDir>/<hash>/`) never sees PTY hosts. When the full id would push the path over the socket
 * limit, a 12-character hash of the id is used instead; both sides compute the same name.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { runDir, SOCKET_PATH_MAX } from '../config/paths.js';

export function ptySocketDir(home: string, projectHash: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(runDir(home, env), projectHash, 'p');
}

export function ptySocketPath(home: string, projectHash: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = ptySocketDir(home, projectHash, env);
  const full = path.join(dir, `${sessionId}.sock`);
  if (Buffer.byteLength(full) <= SOCKET_PATH_MAX) return full;
  return path.join(dir, `${createHash('sha256').update(sessionId).digest('hex').slice(0, 12)}.sock`);
}
