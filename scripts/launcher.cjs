// dist/cli.js (scripts/bundles.mjs fills in the tables): choose the bundle of the command named by
// the first argument and run it. Kept tiny: every command and `klaude --version` pay for it.
// dist/hook.cjs is this file too, running the hook's bundle whatever the arguments (ONLY).
//
// A bundle is compiled with V8's code cache: the first run of a bundle writes the code V8 compiled
// for it, and later runs deserialise that instead of parsing the bundle and compiling its functions
// again. The cache is the user's, not the install's: `<KLAUDE_HOME>/cache/code/` (0700; an install
// prefix may be read-only or shared), one file per bundle, named by the bundle's content hash and
// the node that made it, so a cache of another build (an upgrade in place) or another node is never
// read. A directory that is not private and ours, or not writable, means no cache: the bundle
// compiles as usual. V8 itself rejects a cache made under other V8 flags; it is then made anew.
// Measured with callgrind, `klaude sessions` (1,000 sessions) ran 376 M instructions compiling its
// bundle, 325 M from the cache; the injected hook 127 M as one file compiled by node, 115 M through
// this launcher (`node -e 0`: 93 M).
'use strict';
const ROUTES = __KLAUDE_ROUTES__;
const ROOT = __KLAUDE_ROOT__;
/** Bundles that are ES modules (dist/cmd/<name>.mjs): loaded by node's loader, without a cache. */
const ESM = __KLAUDE_ESM__;
const HASHES = __KLAUDE_HASHES__;
/** The bundle this launcher always runs (dist/hook.cjs), or null (dist/cli.js). */
const ONLY = __KLAUDE_ONLY__;
/** V8 flags by bundle, set before it compiles (a code cache carries the flags it was made under). */
const FLAGS = __KLAUDE_FLAGS__;
/** Cache files of other builds or nodes older than this go when a cache is written (upgrades leave theirs). */
const STALE_MS = 14 * 24 * 3600 * 1000;
const first = process.argv[2];

/** The same choice src/cli.ts makes, on the first word only. */
function bundleFor(word) {
  if (word === '--help' || word === '-h' || word === 'help') return 'main';
  if (word === undefined || word.startsWith('-')) return ROOT;
  return Object.prototype.hasOwnProperty.call(ROUTES, word) ? ROUTES[word] : 'main';
}

/** `<KLAUDE_HOME>/cache/code` as src/config/paths.ts finds the home. */
function cacheDir() {
  const env = process.env;
  const path = require('node:path');
  const home =
    env.KLAUDE_HOME && env.KLAUDE_HOME.trim() !== ''
      ? path.resolve(env.KLAUDE_HOME)
      : path.join(env.HOME || require('node:os').homedir(), '.klaude');
  return path.join(home, 'cache', 'code');
}

/** The cache of bundle `name` as this build and this node make it. */
function cacheName(name) {
  return `${name}.${HASHES[name]}.${process.version}-${process.arch}.cache`;
}

/** The directory is ours and no one else's (no one else could have put a cache there). */
function isPrivate(fs, dir) {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory() && (st.mode & 0o077) === 0 && st.uid === process.getuid();
}

/**
 * Write the cache of `script` as `file` (atomically) in `dir`, `<home>/cache/code`, made 0700 if
 * missing; not the home itself: a command that made no home (`klaude --help`) leaves no cache.
 */
function saveCache(fs, dir, file, script) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    if (!isPrivate(fs, dir)) {
      const cache = dir.slice(0, dir.lastIndexOf('/'));
      if (!fs.existsSync(cache.slice(0, cache.lastIndexOf('/')))) return;
      for (const d of [cache, dir])
        try {
          fs.mkdirSync(d, { mode: 0o700 });
        } catch (e) {
          if (e.code !== 'EEXIST') throw e;
        }
      if (!isPrivate(fs, dir)) return;
    }
    fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(tmp, file);
    const now = Date.now();
    const current = new Set(Object.keys(HASHES).map(cacheName));
    for (const name of fs.readdirSync(dir)) {
      if (current.has(name)) continue;
      const other = `${dir}/${name}`;
      const st = fs.statSync(other, { throwIfNoEntry: false });
      if (st && now - st.mtimeMs > STALE_MS) fs.rmSync(other, { force: true });
    }
  } catch {
    // no cache this time (a read-only or full disk): the next run compiles as this one did
    try {
      fs.unlinkSync(tmp);
    } catch {
      // never written
    }
  }
}

/** A hook outside klaude (no KLAUDE_SESSION_ID) does nothing, and leaves nothing in the home either. */
function traceless() {
  return (ONLY !== null || first === 'hook') && !process.env.KLAUDE_SESSION_ID;
}

/** Run dist/cmd/<name>.cjs as node's loader would, compiled from (and into) its code cache. */
function runCached(name) {
  const fs = require('node:fs');
  const vm = require('node:vm');
  // The loader's own class: requiring node:module would load node's ES module loader too.
  const Module = module.constructor;
  const file = `${__dirname}/cmd/${name}.cjs`;
  const dir = cacheDir();
  const cacheFile = `${dir}/${cacheName(name)}`;
  let cachedData;
  if (process.getuid && isPrivate(fs, dir)) {
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  if (Object.prototype.hasOwnProperty.call(FLAGS, name)) require('node:v8').setFlagsFromString(FLAGS[name].join(' '));
  const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData });
  if (process.getuid && (cachedData === undefined || script.cachedDataRejected) && !traceless()) {
    let saved = false;
    const save = () => {
      if (saved) return;
      saved = true;
      globalThis.__klaudeSaveCodeCache = undefined;
      saveCache(fs, dir, cacheFile, script);
    };
    // With everything this run compiled: at exit; 10 s into a process that runs long (a runtime, a
    // server: a cache once read is never made again, so not so early that a short command slowed
    // down by a busy machine would leave a partial one); or before the bundle changes V8's flags
    // (src/lib/heap.ts), as a cache carries the flags it was made under and V8 rejects it under others.
    globalThis.__klaudeSaveCodeCache = save;
    process.once('exit', save);
    setTimeout(save, 10_000).unref();
  }
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(`${__dirname}/cmd`);
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, `${__dirname}/cmd`);
}

/** The version on fd 1 as it is: process.stdout into a pipe is a net.Socket, whose loading is most of a `--version`. */
function printVersion() {
  const text = `${__KLAUDE_VERSION__}\n`;
  try {
    require('node:fs').writeSync(1, text);
  } catch (e) {
    if (e.code === 'EAGAIN') process.stdout.write(text);
    else if (e.code !== 'EPIPE') throw e;
  }
}

/** Run the bundle `name` (of dist/cmd/). */
function run(name) {
  if (ESM.includes(name)) {
    // The module runs the command and reports its own errors; this is only its loading failing.
    import(`./cmd/${name}.mjs`).catch((e) => {
      process.stderr.write(`klaude: ${e.message} [E_INTERNAL] — hint: reinstall klaude\n`);
      process.exitCode = 1;
    });
  } else if (process.env.KLAUDE_DEBUG === '1') {
    // node's own loader, which maps the stacks KLAUDE_DEBUG prints through dist/cmd/*.map
    process.setSourceMapsEnabled(true);
    require(`./cmd/${name}.cjs`);
  } else runCached(name);
}

if (ONLY !== null) run(ONLY);
else if (first === '--version' || first === '-v' || first === '-V' || first === 'version') printVersion();
else run(bundleFor(first));
