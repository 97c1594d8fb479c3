/**
 * Where this klaude is installed, and the commands that repair it. klaude runs either from an
 * installed package (`npm install -g ./klaude-<v>.tgz`: no sources, its dependencies under its own
 * node_modules) or from a clone (sources, `npm ci` built dist/). Hints that name a command must name
 * the right one for this install, with its path: the person may not know where npm put klaude.
 * Read only on error paths and by `klaude doctor` (one small file read, walking up from here).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KlaudeError } from '../lib/errors.js';
import { shellQuote } from '../lib/shell-quote.js';

export interface KlaudeInstall {
  /** The folder holding klaude's package.json (and dist/, drizzle/, node_modules/). */
  root: string;
  /** `clone`: a source tree (src/cli.ts beside dist/); `package`: an installed tarball. */
  kind: 'package' | 'clone';
  version: string;
}

/** The klaude this code belongs to: the nearest folder above `from` whose package.json is klaude's. */
export function klaudeInstall(from: string = path.dirname(fileURLToPath(import.meta.url))): KlaudeInstall | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = readPackage(path.join(dir, 'package.json'));
    if (pkg?.name === 'klaude') {
      const kind = existsSync(path.join(dir, 'src', 'cli.ts')) ? 'clone' : 'package';
      return { root: dir, kind, version: typeof pkg.version === 'string' ? pkg.version : '?' };
    }
    if (path.dirname(dir) === dir) return null;
  }
}

function readPackage(file: string): { name?: unknown; version?: unknown } | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return null;
  }
}

/** The dependencies with a native part, built by npm as they install (node-gyp or a prebuild). */
export const NATIVE_MODULES = ['better-sqlite3', 'node-pty'] as const;

/** The command that rebuilds native modules (after a Node upgrade, or a failed build): in klaude's own folder. */
export function rebuildCommand(modules: readonly string[], install: KlaudeInstall | null = klaudeInstall()): string {
  const cmd = `npm rebuild ${modules.join(' ')}`;
  return install ? `cd ${shellQuote(install.root)} && ${cmd}` : `${cmd} (in the folder klaude is installed in)`;
}

/**
 * How to put a whole klaude in place of this one (`newer`: a newer version, for a database a newer
 * klaude migrated): a clone rebuilds from its sources, a package is installed again from a tarball.
 */
export function reinstallHint(install: KlaudeInstall | null = klaudeInstall(), newer = false): string {
  if (install?.kind === 'clone') return `cd ${shellQuote(install.root)} && ${newer ? 'git pull && ' : ''}npm ci`;
  const which = newer ? 'a newer release' : 'the release you installed';
  return `npm install -g ./klaude-<version>.tgz (${which}${install ? `; this klaude is ${install.root}` : ''})`;
}

/**
 * A module klaude loads at run time (better-sqlite3, node-pty) that fails to load: its native part
 * built for another Node (NODE_MODULE_VERSION), missing (a failed build), or the module itself
 * missing from the install. One line, and the command that repairs it.
 */
export function moduleLoadError(
  module: string,
  e: unknown,
  install: KlaudeInstall | null = klaudeInstall(),
): KlaudeError {
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
  const missing = isModuleMissing(e, module);
  return new KlaudeError(
    'E_INSTALL',
    missing ? `${module} is missing from this klaude: ${first}` : `${module} does not load: ${first}`,
    {
      hint: missing
        ? `reinstall klaude: ${reinstallHint(install)}`
        : `rebuild it: ${rebuildCommand([module], install)}`,
      cause: e,
    },
  );
}

function isModuleMissing(e: unknown, module: string): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // "Cannot find package 'node-pty'" (the package) — not its .node file, which a rebuild makes.
  return new RegExp(`['"]${module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`).test(String((e as Error).message));
}

/** An error from loading a native addon (as opposed to using it). */
export function isAddonLoadFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ERR_DLOPEN_FAILED' || code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return true;
  return /Could not locate the bindings file|Failed to load native module|NODE_MODULE_VERSION|invalid ELF header/.test(
    e instanceof Error ? e.message : String(e),
  );
}
