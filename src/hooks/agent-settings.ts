/**
 * The `--settings` of an agent's claude: klaude's hooks, and for an agent in a worktree the
 * project's local settings as well (claude/local-settings.ts says why), merged into one private
 * file, since claude takes a single --settings. Rewritten at every launch, so a rule the person
 * (or `approve --always`) added to the project's file since the last launch is there.
 */
import path from 'node:path';
import { projectDir } from '../config/paths.js';
import { localSettingsFile, ownSettingsDir, readSettingsFile, writeSettingsFile } from '../claude/local-settings.js';
import { mergeSettings, type Settings } from './settings.js';

/**
 * Where a session's merged settings live, `<home>/projects/<hash>/settings/<session>-<how>.json`
 * (0600): one per way it is run, as claude may read its file again while it runs.
 */
export function agentSettingsFile(
  home: string,
  projectHash: string,
  sessionId: string,
  how: 'headless' | 'pty',
): string {
  return path.join(projectDir(home, projectHash), 'settings', `${sessionId}-${how}.json`);
}

/**
 * The value for claude's `--settings`: `ours` (klaude's hooks, JSON) as it is, or, for an agent
 * in a worktree whose project has local settings, the path of `file` holding both.
 */
export function agentSettingsArg(
  ours: string,
  o: { cwd: string; worktreePath: string | null; projectRoot: string; file: string },
): string {
  if (!o.worktreePath) return ours;
  // A file claude could not read as settings it would ignore too (-p skips invalid settings).
  const local = readSettingsFile(localSettingsFile(ownSettingsDir(o)));
  if (!local) return ours;
  writeSettingsFile(o.file, mergeSettings(JSON.stringify(local), JSON.parse(ours) as Settings));
  return o.file;
}
