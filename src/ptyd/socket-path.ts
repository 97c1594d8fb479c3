/**
 * Where a PTY session's host listens: `<runDir>/<projectHash>/p/<sessionId>.sock` (0600 in a 0700
 * directory). A subdirectory, so supervisor discovery (which pings every `*.sock` in
 * `<runDir>/<hash>/`) never sees PTY hosts. When the full id would push the path over the socket
 * limit, a 12-character hash of the id is used instead; both sides compute the same name.
 */
import path from 'node:path';
import { runDir, sessionSocketPath } from '../config/paths.js';

export function ptySocketDir(home: string, projectHash: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(runDir(home, env), projectHash, 'p');
}

export function ptySocketPath(
  home: string,
  projectHash: string,
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return sessionSocketPath(home, projectHash, 'p', sessionId, env);
}
