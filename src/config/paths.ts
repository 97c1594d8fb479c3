/**
 * Where klaude keeps things. Pure functions of env + cwd so tests can point
 * everything at a temp home with KLAUDE_HOME / HOME.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../lib/sha256.js';

/** node:os, loaded only when HOME or a short run directory is missing (it is 1 % of a short command). */
function os(): typeof Os {
  return createRequire(import.meta.url)('node:os') as typeof Os;
}

/** Unix socket paths are limited to 104 bytes on macOS (108 on Linux); keep a margin. */
export const SOCKET_PATH_MAX = 103;

export function klaudeHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KLAUDE_HOME;
  if (fromEnv && fromEnv.trim() !== '') return path.resolve(fromEnv);
  return path.join(env.HOME && env.HOME !== '' ? env.HOME : os().homedir(), '.klaude');
}

/** Create a private directory (0700) if missing; tighten it if it exists with wider bits we created. */
export { ensurePrivateDir } from '../lib/private-dir.js';

/**
 * The project a command runs in: the git top level above cwd when there is one
 * (found by walking up for `.git`, no `git` process: hooks must stay fast), else cwd.
 * Always a realpath so symlinked checkouts hash the same.
 */
export function projectRoot(cwd: string = process.cwd()): string {
  const real = realpathSync(cwd);
  let dir = real;
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (existsSync(dotGit)) return agentWorktreeOwner(dotGit) ?? dir;
    const parent = path.dirname(dir);
    if (parent === dir) return real;
    dir = parent;
  }
}

/** Name of the file in a klaude-made worktree's git dir that names the project it belongs to. */
export const WORKTREE_OWNER_FILE = 'klaude-project';

/**
 * A `--worktree` agent's directory belongs to the project it was made from (so an agent there,
 * or a claude opened there, records into the same project). klaude marks its worktrees with a
 * file in the worktree's own git dir (`<repo>/.git/worktrees/<name>/klaude-project`, never in
 * the work tree); other worktrees stay projects of their own.
 */
function agentWorktreeOwner(dotGit: string): string | null {
  try {
    if (!statSync(dotGit).isFile()) return null;
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!m) return null;
    const gitDir = path.resolve(path.dirname(dotGit), m[1]!.trim());
    const owner = readFileSync(path.join(gitDir, WORKTREE_OWNER_FILE), 'utf8').trim();
    return owner && existsSync(owner) ? owner : null;
  } catch {
    return null;
  }
}

export function projectHash(root: string): string {
  return sha256Hex(root).slice(0, 24);
}

export function dbPath(home: string): string {
  return path.join(home, 'sessions.db');
}

export function configPath(home: string): string {
  return path.join(home, 'config.yaml');
}

export function logFilePath(home: string): string {
  return path.join(home, 'klaude.log');
}

/** Per-project data (logs, shared context) lives under <home>/projects/<hash>. */
export function projectDir(home: string, hash: string): string {
  return path.join(home, 'projects', hash);
}

/** Session logs: <logs.dir or home/projects>/<hash>/logs/<session>.ndjson */
export function sessionLogPath(home: string, hash: string, sessionId: string, logsDir?: string | null): string {
  const base = logsDir ? path.join(logsDir, hash) : projectDir(home, hash);
  return path.join(base, 'logs', `${sessionId}.ndjson`);
}

/**
 * Base directory for control sockets. `<home>/run` when a full socket path fits the
 * limit; otherwise a short per-user dir under the system temp dir, keyed by the home
 * so two homes never share sockets.
 */
export function runDir(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const preferred = path.join(home, 'run');
  // <run>/<24-hex hash>/<26-char ULID>.sock
  const longest = path.join(preferred, 'x'.repeat(24), `${'x'.repeat(26)}.sock`);
  if (Buffer.byteLength(longest) <= SOCKET_PATH_MAX) return preferred;
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const base = env.XDG_RUNTIME_DIR && env.XDG_RUNTIME_DIR.length < 40 ? env.XDG_RUNTIME_DIR : os().tmpdir();
  const key = sha256Hex(home).slice(0, 8);
  return path.join(base, `klaude-${uid}-${key}`);
}

export function socketPath(
  home: string,
  hash: string,
  instanceId: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return path.join(runDir(home, env), hash, `${instanceId}.sock`);
}

/**
 * A per-session socket in a subdirectory of the project's run dir (`a` agent runtimes, `p` PTY
 * hosts), so supervisor discovery, which pings every `*.sock` in `<runDir>/<hash>/`, never sees
 * them. When the full id would push the path over the limit, a 12-character hash of it is used;
 * every side computes the same name.
 */
export function sessionSocketPath(
  home: string,
  hash: string,
  sub: 'a' | 'p',
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const dir = path.join(runDir(home, env), hash, sub);
  const full = path.join(dir, `${sessionId}.sock`);
  if (Buffer.byteLength(full) <= SOCKET_PATH_MAX) return full;
  return path.join(dir, `${sha256Hex(sessionId).slice(0, 12)}.sock`);
}
