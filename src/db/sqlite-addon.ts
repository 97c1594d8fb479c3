/**
 * better-sqlite3's native module, the one native part every command needs, loaded here once and
 * handed to each connection (`nativeBinding`). A module that cannot load — built for another Node
 * (what a Node upgrade leaves: another NODE_MODULE_VERSION), cut short or damaged by an interrupted
 * install, or missing — is one typed error naming it and the fix (`npm rebuild better-sqlite3`
 * where it is installed), never SQLite's or the loader's own words. A native file shorter than its
 * own headers say is refused before it is loaded: mapping it would crash Node (SIGBUS), which no
 * catch can turn into a sentence.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
// (Aliased: a bundle's banner may declare `createRequire` itself, as test/integration/db-concurrent.test.ts's does.)
import { createRequire as requireFrom } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KlaudeError } from '../lib/errors.js';

const ADDON = ['build', 'Release', 'better_sqlite3.node'];

export interface SqliteModule {
  /** better-sqlite3's package directory; null when it is not installed at all. */
  packageDir: string | null;
  /** Its native file, where klaude loads it from. */
  file: string;
  /** Where the fix runs: the directory whose node_modules holds it (klaude's install). */
  installDir: string;
}

/**
 * The directory of klaude's own package.json, from this module (src/db, dist/cmd or dist/chunks).
 * dist/package.json (which only says `commonjs` for dist/) is not it: its folder has node_modules.
 */
function klaudeDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6 && !existsSync(path.join(dir, 'package.json')); i++) dir = path.dirname(dir);
  // (Not path.basename: node compiles it on first use, and the hook would call it for this alone.)
  return dir.endsWith(`${path.sep}dist`) ? path.dirname(dir) : dir;
}

export function sqliteModule(): SqliteModule {
  // Where npm puts it for a clone and an install alike, klaude's own node_modules, seen without a
  // module resolution (a package.json read and a realpath of every directory on the way: 1 M
  // instructions of a hook's 13 M beyond starting node). Anywhere else (a hoisted install): resolved.
  const root = klaudeDir();
  const own = path.join(root, 'node_modules', 'better-sqlite3');
  if (existsSync(path.join(own, ...ADDON)))
    return { packageDir: own, file: path.join(own, ...ADDON), installDir: root };
  const req = requireFrom(import.meta.url);
  let packageDir: string | null = null;
  try {
    // Where the bundle's own lookup finds it (scripts/build.mjs): one resolution on the usual path.
    packageDir = path.resolve(req.resolve(`better-sqlite3/${ADDON.join('/')}`), '../../..');
  } catch {
    try {
      packageDir = path.dirname(req.resolve('better-sqlite3/package.json'));
    } catch {
      // not installed: the fix is an install
    }
  }
  if (!packageDir) return { packageDir, file: 'better-sqlite3', installDir: klaudeDir() };
  const modules = path.dirname(packageDir);
  const installDir = path.basename(modules) === 'node_modules' ? path.dirname(modules) : klaudeDir();
  return { packageDir, file: path.join(packageDir, ...ADDON), installDir };
}

/** Its version (doctor says which), or null. */
export function sqliteVersion(m: SqliteModule): string | null {
  try {
    const pkg = JSON.parse(readFileSync(path.join(m.packageDir ?? '', 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? null;
  } catch {
    return null;
  }
}

/** The fix, one command. */
export function sqliteFix(m: SqliteModule): string {
  return m.packageDir ? `cd ${m.installDir} && npm rebuild better-sqlite3` : `cd ${m.installDir} && npm install`;
}

export function sqliteModuleError(m: SqliteModule, why: string): KlaudeError {
  return new KlaudeError(
    'E_SQLITE_MODULE',
    `better-sqlite3, klaude's SQLite module, does not load in Node ${process.version}: ${why}`,
    { hint: `${m.packageDir ? 'rebuild it for this Node' : 'install it'}: ${sqliteFix(m)}` },
  );
}

/**
 * Why the native file must not be loaded, before loading it: missing, or an ELF file shorter than
 * its section headers say (cut short: mapping it would crash Node). Null: go ahead.
 */
export function sqliteFileProblem(m: SqliteModule): string | null {
  if (!m.packageDir) return 'better-sqlite3 is not installed';
  let fd: number;
  try {
    fd = openSync(m.file, 'r');
  } catch {
    return `its native file is missing (${m.file})`;
  }
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, 64, 0);
    // ELF64, little-endian (Linux on x86-64 and arm64): the section headers end the file.
    if (n < 64 || head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return null;
    const end = Number(head.readBigUInt64LE(0x28)) + head.readUInt16LE(0x3a) * head.readUInt16LE(0x3c);
    const size = fstatSync(fd).size;
    return size < end ? `its native file is cut short (${m.file}: ${size} of ${end} bytes)` : null;
  } finally {
    closeSync(fd);
  }
}

/** What a failed load of the native file means, in words. */
export function sqliteLoadProblem(m: SqliteModule, e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const abi = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(msg);
  if (abi) return `built for another Node (NODE_MODULE_VERSION ${abi[1]}; this one needs ${abi[2]}): ${m.file}`;
  if (/Could not locate the bindings file|Cannot find module/.test(msg))
    return `its native file is missing (${m.file})`;
  const first = msg.split('\n')[0]!.trim();
  return `its native file is damaged (${first.includes(m.file) ? first : `${m.file}: ${first}`})`;
}

let loaded: object | undefined;

/**
 * The loaded native module; undefined when it is not where klaude looks (better-sqlite3 then looks
 * in its other places itself, and `openSqlite` names the failure). Throws E_SQLITE_MODULE.
 */
export function sqliteAddon(): object | undefined {
  if (loaded) return loaded;
  const m = sqliteModule();
  if (m.packageDir && !existsSync(m.file)) return undefined;
  const problem = sqliteFileProblem(m);
  if (problem) throw sqliteModuleError(m, problem);
  try {
    // What require() does for a .node file, without its resolution: m.file is a full path.
    const mod = { exports: {} };
    process.dlopen(mod, m.file);
    loaded = mod.exports;
  } catch (e) {
    throw sqliteModuleError(m, sqliteLoadProblem(m, e));
  }
  return loaded;
}

/** Whether an error thrown by `new Database` is the native module failing to load (not SQLite). */
export function isModuleLoadError(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  return (
    err?.code === 'ERR_DLOPEN_FAILED' ||
    (typeof err?.message === 'string' && /Could not locate the bindings file|better_sqlite3\.node/.test(err.message))
  );
}
