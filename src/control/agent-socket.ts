/**
 * Where a running agent's control socket lives: `<runDir>/<projectHash>/a/<sessionId>.sock`.
 * A subdirectory, so supervisor discovery (which pings every `*.sock` in `<runDir>/<hash>/`)
 * never sees agents. When the full id would push the path over the socket limit, a 12-character
 * hash of the id is used instead; both sides compute the same name.
 */
import path from 'node:path';
import { runDir, sessionSocketPath } from '../config/paths.js';

export function agentSocketDir(home: string, projectHash: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(runDir(home, env), projectHash, 'a');
}

export function agentSocketPath(
  home: string,
  projectHash: string,
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return sessionSocketPath(home, projectHash, 'a', sessionId, env);
}
