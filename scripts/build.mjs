// Bundle klaude with esbuild.
// - dist/cli.js: a small CommonJS launcher that runs one bundle per command, dist/cmd/<name>.cjs,
//   compiled from V8's code cache (scripts/bundles.mjs, scripts/launcher.cjs), the dashboard's too
//   (Ink's top-level awaits built away: ink-in-commonjs below). Production React.
// - dist/agent-client.cjs: `klaude` inside a sandboxed agent, a client of its channel (src/sandbox).
// - dist/hook.cjs: `klaude hook <event>` as one small CommonJS file. Claude Code runs it after
//   every tool call (docs/ARCHITECTURE.md, Performance budget: within 1.5× of `node -e 0`, bench/hook.mjs); CommonJS
//   skips the ESM loader's per-file cost. It opens the DB without drizzle (db/fast.ts); only a
//   missing or outdated DB needs the full client, which it requires from dist/db-open.js (an
//   extra entry) instead of carrying drizzle's 200 kB to parse on every call.
// node-pty stays external (it loads its .node files itself). better-sqlite3's JS is bundled
// (a dozen CJS files fewer to load); only its `bindings` lookup is replaced, by a direct
// require of the addon, with `bindings` itself as the fallback for unusual build layouts.
// The output is built aside and swapped in, so a test running dist/ never sees it half-built.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chmodSync, cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { buildCommandBundles, IMPORT_META_URL, ownRequire, writeLauncher } from './bundles.mjs';

const betterSqliteAddon = {
  name: 'better-sqlite3-addon',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, (args) =>
      /[\\/]better-sqlite3[\\/]/.test(args.importer) ? { path: 'bindings', namespace: 'klaude-addon' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'klaude-addon' }, () => ({
      loader: 'js',
      contents: `
        const fallback = 'bindings';
        module.exports = function bindings(name) {
          try {
            return require('better-sqlite3/build/Release/' + name);
          } catch (e) {
            if (e && e.code === 'MODULE_NOT_FOUND') return require(fallback)(name);
            throw e;
          }
        };`,
    }));
    // Its backup method promisifies fs.access when the module loads: node compiles promisify for
    // that on every command and hook, which never back up. Made when a backup first needs it.
    b.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]methods[\\/]backup\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const from = 'const fsAccess = promisify(fs.access);';
      if (!text.includes(from)) throw new Error(`better-sqlite3's backup.js changed: no "${from}" (scripts/build.mjs)`);
      return { contents: text.replace(from, 'const fsAccess = (...a) => promisify(fs.access)(...a);'), loader: 'js' };
    });
  },
};

/** In the hook bundle, the full DB client (drizzle) is the entry dist/db-open.js. */
const dbClientFromEsm = {
  name: 'db-client-from-esm',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/db\/client\.js$/ }, (args) =>
      /[\\/]src[\\/]hooks[\\/]/.test(args.importer) ? { path: '../db-open.js', external: true } : undefined,
    );
  },
};

/**
 * Ink's per-frame output builder is swapped for src/ui/render/frame-output.ts (same contract and
 * bytes, rows reused across frames; see that file for why), and its `widest-line` for the memoised
 * one in src/ui/render/text-width.ts. Only imports made by Ink's own files are redirected.
 */
const inkFrameOutput = {
  name: 'ink-frame-output',
  setup(b) {
    b.onResolve({ filter: /^widest-line$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer)
        ? { path: fileURLToPath(new URL('../src/ui/render/text-width.ts', import.meta.url)) }
        : undefined,
    );
    b.onResolve({ filter: /^\.\/output\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]renderer\.js$/.test(args.importer)
        ? { path: fileURLToPath(new URL('../src/ui/render/frame-output.ts', import.meta.url)) }
        : undefined,
    );
    // Ink's text helpers with bounded memos (src/ui/render/ink-text.ts), built around the
    // libraries and the sanitiser Ink itself uses.
    b.onResolve({ filter: /^\.\/(measure-text|wrap-text|sanitize-ansi)\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer)
        ? { path: args.path.slice(2, -3), namespace: 'ink-text', pluginData: args.resolveDir }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'ink-text' }, (args) => {
      const inkBuild = args.pluginData;
      const ours = JSON.stringify(fileURLToPath(new URL('../src/ui/render/ink-text.ts', import.meta.url)));
      const contents = {
        'measure-text': `export { measureText as default } from ${ours};`,
        'wrap-text': `import wrapAnsi from 'wrap-ansi'; import cliTruncate from 'cli-truncate'; import { wrapTextWith } from ${ours}; export default wrapTextWith(wrapAnsi, cliTruncate);`,
        'sanitize-ansi': `import sanitize from ${JSON.stringify(path.join(inkBuild, 'sanitize-ansi.js'))}; import { sanitizeWith } from ${ours}; export default sanitizeWith(sanitize);`,
      }[args.path];
      return { contents, loader: 'js', resolveDir: inkBuild };
    });
  },
};

/**
 * string-width, slice-ansi and @alcalzone/ansi-tokenize each make an Intl.Segmenter when they
 * load. The first one a process makes costs 12–20 ms (ICU's break-iterator data), and the
 * dashboard's first frame needs none: its plain lines skip these libraries (ui/render/
 * plain-line.ts). Each is made on its first `segment()` call instead; `segment` is all they use.
 */
const lazySegmenters = {
  name: 'lazy-segmenters',
  setup(b) {
    b.onLoad(
      { filter: /[\\/]node_modules[\\/](string-width|slice-ansi|@alcalzone[\\/]ansi-tokenize)[\\/].*\.js$/ },
      async (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('new Intl.Segmenter(')) return undefined;
        const helper =
          'function __klaudeLazySegmenter(locales, options) { let s; return { segment: (t) => (s ??= new Intl.Segmenter(locales, options)).segment(t) }; }\n';
        return { contents: helper + text.replaceAll('new Intl.Segmenter(', '__klaudeLazySegmenter('), loader: 'js' };
      },
    );
  },
};

/**
 * Ink without top-level await, so the dashboard is a CommonJS bundle like every command (compiled
 * from V8's code cache: scripts/launcher.cjs). Two modules of Ink's graph await at their top level:
 * - yoga-layout (its layout engine) awaits its WebAssembly: `yoga-layout` becomes an object filled
 *   when `yoga-layout/load` has loaded it (the same engine), and src/dashboard/yoga-loaded.ts, which
 *   the dashboard awaits before Ink lays out anything, is that load;
 * - Ink's reconciler awaits React's devtools when DEV=true: not in klaude's build (react-devtools-core
 *   is not bundled either).
 * A change in either file fails the build here rather than at run time.
 */
const inkInCommonJs = {
  name: 'ink-in-commonjs',
  setup(b) {
    const yogaLoaded = fileURLToPath(new URL('../src/dashboard/yoga-loaded.ts', import.meta.url));
    b.onResolve({ filter: /^yoga-layout$/ }, () => ({ path: 'yoga-layout', namespace: 'klaude-yoga' }));
    b.onLoad({ filter: /.*/, namespace: 'klaude-yoga' }, () => ({
      loader: 'js',
      resolveDir: path.dirname(yogaLoaded),
      contents: [
        "import { loadYoga } from 'yoga-layout/load';",
        "export * from 'yoga-layout/load';",
        'const Yoga = {};',
        'export default Yoga;',
        'export const yogaLoaded = loadYoga().then((y) => { Object.assign(Yoga, y); });',
      ].join('\n'),
    }));
    b.onLoad({ filter: /[\\/]src[\\/]dashboard[\\/]yoga-loaded\.ts$/ }, () => ({
      loader: 'js',
      contents: "export { yogaLoaded } from 'yoga-layout';",
    }));
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const edits = [
        ["await import('./devtools.js');", 'void 0;'],
        ['await loadPackageJson()', '{ name: undefined, version: undefined }'],
      ];
      for (const [from] of edits)
        if (!text.includes(from))
          throw new Error(`ink's reconciler.js changed: no "${from}" (scripts/build.mjs, ink-in-commonjs)`);
      return { contents: edits.reduce((t, [from, to]) => t.replace(from, to), text), loader: 'js' };
    });
  },
};

/** dist/cmd/<this>.cjs: `klaude hook <event>` as one small CommonJS file (dist/hook.cjs runs it). */
const HOOK_BUNDLE = 'hook-injected';

/**
 * V8 flags a bundle starts with, set by the launcher before it compiles the bundle, so that its code
 * cache is made and read under the same flags: the dashboard's (src/lib/heap.ts says why each),
 * from its very start (yoga's WebAssembly is compiled with the flags of its time). lib/heap.ts sets
 * them again once the first frame is out (dashboard/ui-supervisor.ts), which is when its code cache
 * is saved, and sets them at all when the dashboard runs from source.
 */
const BUNDLE_FLAGS = { ui: ['--semi-space-growth-factor=1', '--max-opt=1', '--liftoff-only'] };

/** Node flags for `klaude` run as a command (the bin): see the launcher lines in the banner. */
const LAUNCH_FLAGS = ['--v8-pool-size=1'];

// `npm pack`/`npm publish` build in `prepack`, then npm runs `prepare` too: once is enough. (`prepare`
// is what builds dist/ on `npm ci` in a clone; a tarball's install runs neither.)
if (process.env.npm_lifecycle_event === 'prepare' && ['pack', 'publish'].includes(process.env.npm_command ?? '')) {
  console.log('dist/ was built by prepack');
  process.exit(0);
}

const out = `dist.build-${process.pid}`;
rmSync(out, { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Minified: every long-lived process (the dashboard, the PTY server) holds its code's source in
  // its heap (about 1.8 MiB less for the dashboard). The linked source maps map stack traces back
  // (node --enable-source-maps; KLAUDE_DEBUG=1 turns that on for `klaude` itself).
  minify: true,
  // react-devtools-core: Ink imports it only when DEV=true (then the person installs it).
  // yaml: loaded from node_modules when there is YAML to read (config/yaml.ts); bundled, its 240 KB
  // would be parsed by every command that reads the config.
  external: ['node-pty', 'react-devtools-core', 'yaml'],
  plugins: [betterSqliteAddon, inkFrameOutput, inkInCommonJs, lazySegmenters],
  logLevel: 'warning',
};
const define = {
  'process.env.NODE_ENV': '"production"',
  __KLAUDE_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version),
};
try {
  // One bundle per command (scripts/bundles.mjs says why), and dist/cli.js below.
  const tables = await buildCommandBundles({ out, common, define });
  // The full DB client for the hook (below), which opens the DB without it unless it must migrate.
  await build({
    ...common,
    entryPoints: { 'db-open': 'src/db/client.ts' },
    outdir: out,
    format: 'cjs',
    plugins: [ownRequire, ...common.plugins],
    define: { ...define, ...IMPORT_META_URL.define },
    banner: IMPORT_META_URL.banner,
  });
  await build({
    ...common,
    entryPoints: { [HOOK_BUNDLE]: 'src/hooks/main.ts' },
    outdir: `${out}/cmd`,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    // import('./db-open.js') becomes require().
    supported: { 'dynamic-import': false },
    plugins: [dbClientFromEsm, ownRequire, betterSqliteAddon],
    define: { ...define, ...IMPORT_META_URL.define },
    banner: IMPORT_META_URL.banner,
  });
  writeLauncher({
    out,
    file: 'cli.js',
    ...tables,
    flags: BUNDLE_FLAGS,
    version: define.__KLAUDE_VERSION__,
    banner: [
      // Both a shell script and the CommonJS module: sh runs line 2 and execs node on this same file
      // with the flags below; node skips line 1 and reads line 2 as a string and a comment.
      // Flags cannot be set once node runs, and `#!/usr/bin/env -S node …` is not portable
      // (busybox's env has no -S). One V8 worker thread instead of four: each thread that ran
      // a background task (GC, compilation) kept a malloc arena of 1–2 MiB, 3–5 MiB of the
      // dashboard's memory. `node dist/cli.js` (tests, the PATH shim) runs without them.
      '#!/bin/sh',
      `':' //; exec node ${LAUNCH_FLAGS.join(' ')} "$0" "$@"`,
      '',
    ].join('\n'),
  });
  // dist/hook.cjs, what klaude injects as every hook's command: the same launcher, always running
  // the hook's bundle, so it too compiles from the code cache (half of what a hook cost beyond
  // `node -e 0` was parsing and compiling its bundle).
  writeLauncher({ out, file: 'hook.cjs', cjs: [HOOK_BUNDLE], only: HOOK_BUNDLE, version: define.__KLAUDE_VERSION__ });
  // dist/agent-client.cjs: the `klaude` a sandboxed agent runs (src/sandbox/channel-client.ts), which
  // only hands its command line to the agent's channel: node built-ins and nothing of klaude's state.
  await build({
    ...common,
    entryPoints: { 'agent-client': 'src/sandbox/channel-client.ts' },
    outdir: out,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    plugins: [],
    define,
  });
  // The web page (`klaude web`, src/web/page): one browser bundle with React, served by klaude
  // itself (no CDN), and its static files next to it in dist/web/.
  await build({
    entryPoints: { app: 'src/web/page/main.tsx' },
    outdir: `${out}/web`,
    bundle: true,
    // The terminal (xterm.js) is its own chunk, loaded when a page first opens a terminal.
    splitting: true,
    chunkNames: '[name]-[hash]',
    platform: 'browser',
    format: 'esm',
    target: ['chrome110', 'safari16', 'firefox115'],
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  cpSync('src/web/page/static', `${out}/web`, { recursive: true });
  cpSync('node_modules/@xterm/xterm/css/xterm.css', `${out}/web/xterm.css`);
  // Gzipped once here: the server reads a file when asked and keeps none in memory (web/static-files.ts).
  for (const name of readdirSync(`${out}/web`))
    if (/\.(js|css|svg|webmanifest)$/.test(name))
      writeFileSync(`${out}/web/${name}.gz`, gzipSync(readFileSync(`${out}/web/${name}`), { level: 9 }));
  chmodSync(`${out}/cli.js`, 0o755);
  const old = `dist.old-${process.pid}`;
  if (existsSync('dist')) renameSync('dist', old);
  renameSync(out, 'dist');
  rmSync(old, { recursive: true, force: true });
} finally {
  rmSync(out, { recursive: true, force: true });
}
