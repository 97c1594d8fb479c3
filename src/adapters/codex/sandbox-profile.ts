/**
 * klaude's boundary (sandbox/boundary.ts) as a codex permission profile (docs/sandbox.md, "Which
 * CLIs"; verified against codex 0.169.0 in docs/cli-notes.md, "codex's sandbox with klaude's
 * boundary"). codex runs each shell command of a sandboxed agent in its own bubblewrap (Linux) or
 * Seatbelt (macOS) with the profile `klaude`, passed as `-c` overrides at every launch:
 *
 * - it extends `:read-only` (commands read the machine, write nowhere, no network) and adds
 *   `write` for the working tree, its worktree's git metadata and `sandbox.allowWrite` (not in
 *   plan mode: codex's read-only sandbox), and for the agent's channel directory: the io directory
 *   the agent's `klaude` talks through, and its temp dir (TMPDIR, as `/tmp` is not writable);
 * - `none` for klaude's home and run directory (and `logs.dir`): absent inside, files and sockets;
 * - `read` for the channel's `bin` (the agent's `klaude`), inside the writable channel directory:
 *   codex 0.169 binds a `read` path before it hides the `none` one above it, so a readable path
 *   directly inside a hidden one comes out hidden, but one inside a `write` path is bound read-only
 *   after it (seen with `codex sandbox`), which is also why `bin` cannot be replaced from inside.
 *
 * Hosts: none. codex's profile can only let hosts through with its beta network proxy, which klaude
 * does not drive; commands of a codex agent reach no network at all (codex itself, outside the
 * sandbox, still reaches its model), so `sandbox.allowedDomains` does not apply to them.
 */
import { readFileSync } from 'node:fs';
import type { SandboxBoundary } from '../../sandbox/boundary.js';
import type { SandboxLaunch } from '../runtime-adapter.js';
import { isObj } from '../json-line.js';

/** The profile's name in codex's config (`permissions.klaude`). */
export const CODEX_PROFILE = 'klaude';
/** The key of a sandboxed launch's settings (LaunchInput.settings) holding codex's `-c` overrides. */
export const CODEX_CONFIG_KEY = 'codexConfig';

type Access = 'none' | 'read' | 'write';
const RANK: Record<Access, number> = { read: 0, write: 1, none: 2 };

/** The profile's `filesystem` table: each path once, with the strongest access named for it. */
export function codexFilesystem(b: SandboxBoundary, readOnly: boolean): Record<string, Access> {
  const fs = new Map<string, Access>();
  const put = (p: string, a: Access): void => {
    const had = fs.get(p);
    if (!had || RANK[a] > RANK[had]) fs.set(p, a);
  };
  for (const p of b.hidden) put(p, 'none');
  // The io directory is the channel's: its whole directory is writable instead (below).
  const own = [b.channel.io, b.channel.bin, b.channel.dir];
  for (const p of b.readable) if (!own.includes(p)) put(p, 'read');
  if (!readOnly) for (const p of b.write) if (!own.includes(p)) put(p, 'write');
  put(b.channel.dir, 'write');
  put(b.channel.bin, 'read');
  return Object.fromEntries(fs);
}

/** codex's `-c` overrides for a sandboxed launch: the profile, selected, and the commands' TMPDIR. */
export function codexSandboxConfig(b: SandboxBoundary, permissionMode: string | null): Record<string, unknown> {
  const readOnly = permissionMode === 'plan';
  return {
    default_permissions: CODEX_PROFILE,
    [`permissions.${CODEX_PROFILE}`]: { extends: ':read-only', filesystem: codexFilesystem(b, readOnly) },
    'shell_environment_policy.set.TMPDIR': b.channel.dir,
    // A login shell's profile sets PATH anew (Debian's /etc/profile does), and the agent's
    // `klaude`, first on the PATH codex is given, would be gone from its commands.
    allow_login_shell: false,
  };
}

/**
 * bypassPermissions would turn codex's sandbox off (`--dangerously-bypass-approvals-and-sandbox`):
 * inside klaude's sandbox it runs as acceptEdits, which in `codex exec` runs every command inside
 * the profile without asking, as bypass would, and nothing outside it.
 */
export function codexSandboxLaunch(b: SandboxBoundary, permissionMode: string | null): SandboxLaunch {
  const mode = permissionMode === 'bypassPermissions' ? 'acceptEdits' : permissionMode;
  return { settings: { [CODEX_CONFIG_KEY]: codexSandboxConfig(b, mode) }, permissionMode: mode };
}

/**
 * The `-c` overrides a launch's settings carry (inline JSON, or the file klaude merged them into
 * for a worktree agent), or null when the launch is not sandboxed by klaude.
 */
export function codexConfigOf(settings: string | null | undefined): Record<string, unknown> | null {
  if (!settings) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(settings.trim().startsWith('{') ? settings : readFileSync(settings, 'utf8'));
  } catch {
    return null;
  }
  const config = isObj(parsed) ? parsed[CODEX_CONFIG_KEY] : null;
  return isObj(config) ? config : null;
}
