/**
 * `install`: is this klaude whole where it is installed (a package from its tarball, or a clone)?
 * The files the CLI loads beside itself (the hook entry, the DB client, the web page, the
 * migrations), and node-pty, a native module npm built as it installed, running `sh` in a PTY (its
 * native part and, on macOS, its spawn helper). better-sqlite3 has a line of its own (`sqlite module`,
 * sqlite-check.ts), probed in a child node: a damaged addon loaded here could crash doctor itself.
 * A fix names the command for this install, with its path: the person may not know where npm put klaude.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { klaudeInstall, moduleLoadError, reinstallHint, type KlaudeInstall } from '../config/install.js';
import { isKlaudeError } from '../lib/errors.js';
import { failed, passed, warned, type CheckResult } from './check.js';

const CHECK = 'install';

/** What a built klaude loads from its own folder at run time (scripts/build.mjs, package.json `files`). */
export const SHIPPED_FILES = [
  'dist/cli.js',
  // says `commonjs` for dist/: without it node takes dist/cli.js for an ES module (scripts/bundles.mjs)
  'dist/package.json',
  'dist/cmd/main.cjs',
  'dist/agent-client.cjs',
  'dist/hook.cjs',
  'dist/db-open.js',
  'dist/web/index.html',
  'dist/web/app.js',
  'drizzle/meta/_journal.json',
];

export interface NativeProbes {
  pty(): Promise<void>;
}

const REAL_PROBES: NativeProbes = { pty: probePty };

export async function checkInstall(
  install: KlaudeInstall | null = klaudeInstall(),
  probes: NativeProbes = REAL_PROBES,
): Promise<CheckResult> {
  if (!install) return warned(CHECK, 'cannot tell where this klaude is installed (no package.json of klaude above it)');
  const what = `klaude ${install.version}, ${install.kind === 'clone' ? 'a clone' : 'installed package'} at ${install.root}`;
  const missing = SHIPPED_FILES.filter((f) => !existsSync(path.join(install.root, f)));
  if (missing.length > 0) {
    const fix =
      install.kind === 'clone'
        ? `build it: cd ${install.root} && npm run build`
        : `reinstall klaude: ${reinstallHint(install)}`;
    return failed(CHECK, `${what}: missing ${missing.join(', ')}`, fix);
  }
  try {
    await probes.pty();
  } catch (e) {
    const err = isKlaudeError(e) && e.code === 'E_INSTALL' ? e : moduleLoadError('node-pty', e, install);
    return failed(CHECK, `${what}: ${err.message}`, err.hint ?? reinstallHint(install));
  }
  return passed(CHECK, `${what}: whole; node-pty loads`);
}

/** `sh -c 'exit 7'` in a PTY: node-pty loads, spawns and reports the exit code. */
async function probePty(): Promise<void> {
  const { spawnInPty } = await import('../ptyd/pty-process.js');
  const child = spawnInPty('/bin/sh', ['-c', 'exit 7'], {
    cols: 80,
    rows: 24,
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 10_000);
    child.onExit((e) => {
      clearTimeout(timer);
      resolve(e.exitCode);
    });
  });
  if (code !== 7)
    throw new Error(
      code === null ? 'a shell in a PTY did not exit within 10 s' : `a shell in a PTY exited ${code}, not 7`,
    );
}
