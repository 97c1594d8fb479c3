/**
 * Where Claude Code keeps a session's transcript (docs/cli-facts.md §2.6). Used to
 * tell a resumable session (transcript exists → `--resume`) from one that never got a
 * first message (no transcript → relaunch with the same `--session-id`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { claudeConfigDir } from './config-dir.js';

function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

export function claudeProjectSlug(cwd: string): string {
  const slug = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (slug.length <= 200) return slug;
  return `${slug.slice(0, 200)}-${Math.abs(javaStringHash(cwd)).toString(36)}`;
}

export function claudeTranscriptPath(cwd: string, claudeSessionId: string, env: NodeJS.ProcessEnv): string {
  return path.join(claudeConfigDir(env), 'projects', claudeProjectSlug(cwd), `${claudeSessionId}.jsonl`);
}

export function transcriptExists(
  known: string | null | undefined,
  cwd: string,
  id: string,
  env: NodeJS.ProcessEnv,
): boolean {
  if (known && existsSync(known)) return true;
  return existsSync(claudeTranscriptPath(cwd, id, env));
}
