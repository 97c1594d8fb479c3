/**
 * Where Claude Code keeps its user-level files, from env (never the process's real home in
 * tests: they pass a temp HOME). `CLAUDE_CONFIG_DIR` moves both, as it does for claude itself.
 */
import { homedir } from 'node:os';
import path from 'node:path';

export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME !== '' ? env.HOME : homedir();
}

/** `~/.claude` (or `$CLAUDE_CONFIG_DIR`). */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== '' ? path.resolve(dir) : path.join(userHome(env), '.claude');
}

/** `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`): user and local MCP servers, per-project state. */
export function claudeJsonPath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== ''
    ? path.join(path.resolve(dir), '.claude.json')
    : path.join(userHome(env), '.claude.json');
}

export function userAgentsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(claudeConfigDir(env), 'agents');
}

export function projectAgentsDir(root: string): string {
  return path.join(root, '.claude', 'agents');
}

/** Show a path under the home as `~/…` (hints read better, and tests' temp homes stay short). */
export function tildify(p: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = userHome(env);
  return p === home ? '~' : p.startsWith(home + path.sep) ? `~${p.slice(home.length)}` : p;
}
