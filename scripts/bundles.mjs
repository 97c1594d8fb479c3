// The CLI as one CommonJS bundle per command, and dist/cli.js, the launcher that picks one.
//
// Why not one ES module graph with shared chunks: a short command paid for node's ES module loader
// (URL resolution, a package.json lookup and a module record per chunk, ~20 chunks for
// `klaude sessions`) and for the `node:fs` namespace, whose lazy getters load fs/promises,
// readline and the watchers; measured with callgrind, `klaude sessions` (1,000 sessions) ran 450 M
// instructions as ES module chunks, 376 M as its own CommonJS bundle (`node -e 0`: 93 M). A
// CommonJS file can also be compiled from V8's code cache (scripts/launcher.cjs): 325 M.
//
// Each bundle is closed: src/cli.ts with everything one command reaches, the other commands left
// out (their imports in the command tables resolve to a module that throws). A process loads
// exactly one bundle, so no module exists twice in it (`instanceof KlaudeError` holds).
// dist/cli.js looks at the first argument only to choose (scripts/launcher.cjs); the bundle's own
// cli.ts does the rest as before. Commands that would reach a module with top-level await, which
// CommonJS cannot carry, share one ES module entry with lazily loaded chunks instead
// (dist/cmd/tui.mjs, dist/chunks/); none does now: the build takes Ink's away (build.mjs).
import { build, transformSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The files whose dynamic imports choose a command: cli.ts and the command tables. */
const TABLES = ['src/commands/table/registry.ts', 'src/commands/table/direct.ts', 'src/cli.ts'].map((f) =>
  path.resolve(f),
);
const TABLE_DIR = path.resolve('src/commands/table');

/** The ES module entry of the commands that cannot be CommonJS (dist/cmd/tui.mjs). */
const ESM_ENTRY = 'tui';

/** `./x.js` as imported from `dir`: the source file it names. */
function sourceOf(dir, spec) {
  const base = path.resolve(dir, spec).replace(/\.js$/, '');
  for (const ext of ['.ts', '.tsx']) if (existsSync(base + ext)) return base + ext;
  throw new Error(`cannot find the source of ${spec} (from ${dir})`);
}

/**
 * The command tables as data: each first word → the source file its command imports. Read from
 * the tables themselves, bundled aside with their dynamic imports left as absolute paths. Direct
 * commands (`klaude hook`, the hidden ones) win over COMMANDS, as in cli.ts.
 */
async function commandModules() {
  const out = await build({
    stdin: {
      contents: `export { COMMANDS } from './registry.ts'; export { DIRECT_COMMANDS } from './direct.ts';`,
      resolveDir: TABLE_DIR,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'keep-imports',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (a) =>
            a.kind === 'dynamic-import' ? { path: sourceOf(a.resolveDir, a.path), external: true } : undefined,
          );
        },
      },
    ],
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(module, module.exports, () => ({}));
  const imported = (word, fn) => {
    const m = /import\(\s*["']([^"']+)["']\s*\)/.exec(String(fn));
    if (!m) throw new Error(`cannot tell which module command '${word}' loads: ${fn}`);
    return m[1];
  };
  const words = new Map();
  for (const [word, fn] of Object.entries(module.exports.DIRECT_COMMANDS)) words.set(word, imported(word, fn));
  for (const c of module.exports.COMMANDS) if (!words.has(c.name)) words.set(c.name, imported(c.name, c.load));
  return words;
}

/** In a bundle carrying `keep` (source files), the tables' imports of other commands throw. */
function onlyCommands(all, keep) {
  return {
    name: 'only-commands',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        if (a.kind !== 'dynamic-import' || !TABLES.some((t) => a.importer === t || a.importer.startsWith(TABLE_DIR)))
          return undefined;
        const file = sourceOf(a.resolveDir, a.path);
        return all.has(file) && !keep.has(file) ? { path: file, namespace: 'klaude-not-here' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'klaude-not-here' }, (a) => ({
        loader: 'js',
        contents: `throw new Error(${JSON.stringify(`this bundle of klaude does not carry ${path.relative('src', a.path)} (dist/cli.js chose the wrong one)`)});`,
      }));
    },
  };
}

/**
 * In a CommonJS bundle, klaude's `createRequire(import.meta.url)` is the bundle's own `require`:
 * loading node:module itself loads node's ES module loader and source map support, about 80
 * functions to compile on every command and hook.
 */
export const ownRequire = {
  name: 'own-require',
  setup(b) {
    b.onResolve({ filter: /^(node:)?module$/ }, (a) =>
      /[\\/]src[\\/]/.test(a.importer) ? { path: 'module', namespace: 'klaude-own-require' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'klaude-own-require' }, () => ({
      loader: 'js',
      contents:
        "export function createRequire(url) { return url === __klaudeImportMetaUrl ? require : require('node:module').createRequire(url); }",
    }));
  },
};

/**
 * `import.meta.url` in a CommonJS bundle (its `define` and `banner`): the bundle's file URL, every
 * character but the unreserved ones and `/` percent-encoded (UTF-8), which fileURLToPath and
 * createRequire read back to the same path. Not node:url's pathToFileURL: its URL class is some 30
 * functions to compile on every command and hook.
 */
export const IMPORT_META_URL = {
  define: { 'import.meta.url': '__klaudeImportMetaUrl' },
  banner: {
    js: "const __klaudeImportMetaUrl = 'file://' + __filename.replace(/[^\\w\\-.~!$&'()*+,;=:@/]/gu, encodeURIComponent);",
  },
};

/** Options every CommonJS bundle of dist/cmd/ shares. */
function cjsOptions({ out, common, define }) {
  return {
    ...common,
    outdir: `${out}/cmd`,
    outExtension: { '.js': '.cjs' },
    // Maps name the sources without carrying them: each bundle repeats much of the code, and a
    // stack trace needs only the positions (KLAUDE_DEBUG=1).
    sourcesContent: false,
    format: 'cjs',
    // import() of what stays outside the bundle (yaml, node-pty, ws) becomes require().
    supported: { 'dynamic-import': false },
    define: { ...define, ...IMPORT_META_URL.define },
    banner: IMPORT_META_URL.banner,
  };
}

const isTopLevelAwait = (e) => e?.errors?.some((m) => /top-level await/i.test(m.text));

/** A short name for the bundle of `word` (the first word routed to it; the root command's is `root`). */
const bundleName = (word) => (word === '' ? 'root' : word);

/**
 * Build dist/cmd/<bundle>.cjs for every command (dist/cmd/tui.mjs and dist/chunks/ for those that
 * must stay ES modules), and dist/package.json. `common` and `define` are the build's own options.
 * Returns the launcher's tables (writeLauncher).
 */
export async function buildCommandBundles({ out, common, define }) {
  const words = await commandModules();
  const all = new Set(words.values());
  /** bundle name → the command modules it carries. */
  const bundles = new Map([['main', new Set()]]);
  const bundleOf = new Map();
  for (const [word, file] of words) {
    if (!bundleOf.has(file)) {
      bundleOf.set(file, bundleName(word));
      bundles.set(bundleName(word), new Set([file]));
    }
  }
  const opts = cjsOptions({ out, common, define });
  const results = await Promise.allSettled(
    [...bundles].map(([name, keep]) =>
      build({
        ...opts,
        entryPoints: { [name]: 'src/cli.ts' },
        plugins: [onlyCommands(all, keep), ownRequire, ...common.plugins],
        logLevel: 'silent',
      }),
    ),
  );
  const esm = new Set();
  for (const [i, r] of results.entries()) {
    const name = [...bundles.keys()][i];
    if (r.status === 'fulfilled') continue;
    if (!isTopLevelAwait(r.reason) || name === 'main') throw r.reason;
    esm.add(name);
  }
  if (esm.size > 0) {
    const keep = new Set([...esm].flatMap((n) => [...bundles.get(n)]));
    await build({
      ...common,
      entryPoints: { [`cmd/${ESM_ENTRY}`]: 'src/cli.ts' },
      outdir: out,
      sourcesContent: false,
      splitting: true,
      format: 'esm',
      outExtension: { '.js': '.mjs' },
      chunkNames: 'chunks/[name]-[hash]',
      plugins: [onlyCommands(all, keep), ...common.plugins],
      define,
      banner: {
        js: "import { createRequire as __klaudeCreateRequire } from 'node:module';\nconst require = __klaudeCreateRequire(import.meta.url);",
      },
    });
  }
  // dist/*.js are CommonJS (the project's package.json says "module" for its sources).
  writeFileSync(`${out}/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);
  // First word → bundle. Words not listed (`help`, unknown ones) go to `main`, which prints help or the error.
  const routes = {};
  for (const [word, file] of words) {
    const name = bundleOf.get(file);
    if (word !== '') routes[word] = esm.has(name) ? ESM_ENTRY : name;
  }
  const rootName = bundleOf.get(words.get(''));
  return {
    routes,
    root: esm.has(rootName) ? ESM_ENTRY : rootName,
    esm: esm.size > 0 ? [ESM_ENTRY] : [],
    cjs: [...bundles.keys()].filter((n) => !esm.has(n)),
  };
}

/**
 * Write `file` (dist/cli.js, dist/hook.cjs): scripts/launcher.cjs with its tables, `banner` on top.
 * `cjs` names the CommonJS bundles of dist/cmd/ it may run (each by its content hash, the name of
 * its code cache); `only`, when given, is the one it always runs, whatever the arguments; `flags`,
 * bundle name → V8 flags set before that bundle is compiled.
 */
export function writeLauncher({
  out,
  file,
  banner = '',
  routes = {},
  root = null,
  esm = [],
  cjs,
  only = null,
  flags = {},
  version,
}) {
  const hashes = {};
  for (const name of cjs) {
    const text = readFileSync(`${out}/cmd/${name}.cjs`, 'utf8');
    // The launcher compiles a bundle itself (vm.Script), which has no loader for import().
    if (/\bimport\(/.test(text)) throw new Error(`dist/cmd/${name}.cjs has an import(): make it a require()`);
    hashes[name] = createHash('sha256').update(text).digest('hex').slice(0, 16);
  }
  const tables = {
    __KLAUDE_ROUTES__: JSON.stringify(routes),
    __KLAUDE_ROOT__: JSON.stringify(root),
    __KLAUDE_HASHES__: JSON.stringify(hashes),
    __KLAUDE_ESM__: JSON.stringify(esm),
    __KLAUDE_ONLY__: JSON.stringify(only),
    __KLAUDE_FLAGS__: JSON.stringify(flags),
    __KLAUDE_VERSION__: version,
  };
  // Minified but for its tables (one `const NAME = value;` line each, as tests read them): node
  // parses the launcher from source on every command and hook, and most of it is comments (about
  // 1 M instructions of a hook's 95 M under callgrind). Its names stay: stack traces name them.
  const source = readFileSync(path.join('scripts', 'launcher.cjs'), 'utf8');
  const TABLE = /^const ([A-Z]+) = __KLAUDE_[A-Z]+__;$/gm;
  const lines = [...source.matchAll(TABLE)].map((m) => m[0]);
  const body = transformSync(source.replace(TABLE, '').replace(/^'use strict';$/m, ''), {
    minifyWhitespace: true,
    minifySyntax: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
  }).code;
  const launcher = ["'use strict';", ...lines, body]
    .join('\n')
    .replace(/__KLAUDE_[A-Z]+__/g, (name) => tables[name] ?? name);
  writeFileSync(`${out}/${file}`, `${banner}${launcher}`);
}
