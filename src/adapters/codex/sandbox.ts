/**
 * What codex's own Linux sandbox needs from klaude (docs/cli-notes.md, "codex's sandbox").
 *
 * codex 0.169 runs each shell command through bubblewrap: the system `bwrap` found on PATH when
 * its `--help` lists `--perms`, else the copy in its package. Inside bwrap it re-enters itself as
 * `codex-linux-sandbox`: by absolute path with `--argv0` when that bwrap has it (0.9.0 and later,
 * and the bundled copy), by that bare name on PATH otherwise (Debian 12's 0.8.0, Ubuntu 22.04's
 * 0.6.1). The name is a link codex makes under `$CODEX_HOME/tmp/arg0` at start-up, except when
 * CODEX_HOME is under the temp dir or not writable; then every command fails with
 * `bwrap: execvp codex-linux-sandbox: No such file or directory`, which codex tells the model
 * only. So klaude keeps such a link of its own on the PATH it gives codex, and checks the sandbox
 * once before a run (`codex sandbox -- true`), failing the run at once with codex's own error when
 * the sandbox cannot start (no user namespaces, for one).
 */
import {
  closeSync,
  existsSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { ensurePrivateDir } from '../../lib/private-dir.js';
import { sha256Hex } from '../../lib/sha256.js';
import type { LaunchCommand, LaunchInput, SandboxCheck } from '../runtime-adapter.js';
import type { EngineCheck } from '../../sandbox/engine.js';

/** The name codex's sandbox helper is run by. */
export const CODEX_SANDBOX_HELPER = 'codex-linux-sandbox';

/** node arch → the target triple of the native binary inside `@openai/codex-linux-<arch>` (its bin/codex.js). */
const LINUX_TRIPLES: Partial<Record<string, string>> = {
  x64: 'x86_64-unknown-linux-musl',
  arm64: 'aarch64-unknown-linux-musl',
};

function isElf(file: string): boolean {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * The native codex executable behind `binary` on Linux: the binary itself when it is one (a
 * standalone install), or the one the npm package's `bin/codex.js` launcher would run. Null when
 * it cannot be told.
 */
export function codexNativeBinary(binary: string, platform = process.platform, arch = process.arch): string | null {
  if (platform !== 'linux') return null;
  let real: string;
  try {
    real = realpathSync(binary);
  } catch {
    return null;
  }
  if (isElf(real)) return real;
  const triple = LINUX_TRIPLES[arch];
  if (!triple || path.basename(real) !== 'codex.js') return null;
  const candidates: string[] = [];
  try {
    const pkg = createRequire(real).resolve(`@openai/codex-linux-${arch}/package.json`);
    candidates.push(path.join(path.dirname(pkg), 'vendor', triple, 'bin', 'codex'));
  } catch {
    // Not installed as its own package: older releases carried vendor/ inside @openai/codex.
  }
  candidates.push(path.join(path.dirname(real), '..', 'vendor', triple, 'bin', 'codex'));
  return candidates.find((c) => existsSync(c) && isElf(c)) ?? null;
}

/**
 * `<root>/codex-<hash>/codex-linux-sandbox` → the native codex behind `binary`, made (or
 * re-pointed) now; returns its directory for codex's PATH, or [] when there is no native binary
 * to point at (not Linux, an unknown layout). `root` defaults to `<home>/bin`.
 */
export function codexPathHelpers(binary: string, home: string, root = path.join(home, 'bin')): string[] {
  const native = codexNativeBinary(binary);
  if (!native) return [];
  const dir = ensurePrivateDir(path.join(root, `codex-${sha256Hex(native).slice(0, 12)}`));
  const link = path.join(dir, CODEX_SANDBOX_HELPER);
  let current: string | null = null;
  try {
    current = readlinkSync(link);
  } catch {
    current = null;
  }
  if (current !== native) {
    const tmp = `${link}.${process.pid}.tmp`;
    symlinkSync(native, tmp);
    renameSync(tmp, link);
  }
  return [dir];
}

/**
 * The helper link where codex's sandbox finds it: bubblewrap looks the name up *inside* the
 * sandbox, where klaude's home is hidden from a sandboxed agent (sandbox-profile.ts), so the link
 * lives in codex's own home (`$CODEX_HOME/klaude/`, readable there, writable by no command), as
 * codex's own links do; in klaude's home only when codex's cannot be written.
 */
export function codexHelperDirs(binary: string, home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const codexHome = env.CODEX_HOME || path.join(env.HOME || homedir(), '.codex');
  try {
    return codexPathHelpers(binary, home, path.join(codexHome, 'klaude'));
  } catch {
    return codexPathHelpers(binary, home);
  }
}

/**
 * `codex sandbox <config> -- true`: the sandbox of a run, around a no-op: its `sandbox_mode` (a
 * string), or the `-c` overrides of klaude's permission profile.
 */
export function codexSandboxCheck(
  input: LaunchInput,
  config: string | string[],
  platform = process.platform,
): SandboxCheck | null {
  if (platform !== 'linux') return null;
  const overrides = typeof config === 'string' ? ['-c', `sandbox_mode=${JSON.stringify(config)}`] : config;
  const cmd: LaunchCommand = {
    file: codexNativeBinary(input.binary) ?? input.binary,
    args: ['sandbox', ...overrides, '--', 'true'],
    env: {},
    stdin: 'closed',
  };
  return { cmd, describe: 'codex sandbox -- true', explain: explainSandboxFailure };
}

/** codex's noise around a failure (a panic's location, backtraces, its stdin notice). */
const NOISE = [
  /^thread '[^']*'.* panicked at /,
  /^stack backtrace:/i,
  /^\d+: (<unknown>|0x)/,
  /^note: /,
  /^Reading (additional )?input from stdin/,
];
/** What only the sandbox says: bubblewrap's errors, the panics of codex's sandbox helper. */
const SANDBOX_WORDS = /bwrap|bubblewrap|sandbox|namespace|seccomp|landlock/i;

/**
 * A failed check's stderr → one line: codex's (or bwrap's) own words, then what to do. Null when
 * codex failed for another reason (its config does not load): `codex exec` then fails the same way,
 * and says so itself.
 */
export function explainSandboxFailure(stderr: string): { message: string; hint: string } | null {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !NOISE.some((re) => re.test(l)));
  // Its own error first. Its start-up warnings (PATH aliases it did not make) explain only a
  // missing helper: after it, and only then.
  const errors = lines.filter((l) => !l.startsWith('WARNING:'));
  const noHelper = errors.some((l) => l.includes(`execvp ${CODEX_SANDBOX_HELPER}`));
  if (!errors.some((l) => SANDBOX_WORDS.test(l))) return null;
  const said = [...errors, ...(noHelper ? lines.filter((l) => l.startsWith('WARNING:')) : [])].join(' | ');
  const message = `codex's sandbox cannot start here: ${said}`;
  const bypass =
    'or run codex without any sandbox: `klaude start --no-sandbox --bypass-without-sandbox` with `permissionMode: bypassPermissions` in the agent definition (agents.permissionMode in config.yaml)';
  if (noHelper)
    return {
      message,
      hint: `this bubblewrap has no --argv0 (older than 0.9.0), so codex runs its helper by name and found none: install bubblewrap 0.9.0 or later, or set CODEX_HOME outside the temp dir so codex links its helper there, ${bypass}`,
    };
  if (/namespace|uid map|Operation not permitted|Permission denied/i.test(said))
    return {
      message,
      hint: `bubblewrap cannot create the namespaces it needs here (user namespaces disabled or restricted, e.g. by AppArmor on Ubuntu 24.04, or inside a container): allow them, ${bypass}`,
    };
  return { message, hint: `run \`codex sandbox -- true\` in the agent's directory to see it, ${bypass}` };
}

/**
 * Whether codex's sandbox can run here, for klaude's plan (no process spawned: a start stays cheap;
 * the check before the first launch runs it). On Linux codex brings its own bubblewrap when the
 * system has none (above); on macOS it is Seatbelt, part of the system.
 */
export function codexSandboxEngine(_env: NodeJS.ProcessEnv, platform = process.platform): EngineCheck {
  if (platform === 'linux') return { engine: 'bubblewrap', missing: null, fix: null };
  if (platform === 'darwin') return { engine: 'Seatbelt', missing: null, fix: null };
  return {
    engine: 'none',
    missing: `klaude drives codex's sandbox on Linux and macOS only, not ${platform}`,
    fix: null,
  };
}
