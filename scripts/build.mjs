// Bundle the CLI with esbuild: one small entry that lazy-loads a chunk per subcommand,
// production React, native modules left external (they load their .node files).
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';

const entryPoints = { cli: 'src/cli.ts' };

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minifySyntax: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'node-pty'],
  define: {
    'process.env.NODE_ENV': '"production"',
    __KLAUDE_VERSION__: JSON.stringify(JSON.parse(readFileSync('package.json', 'utf8')).version),
  },
  banner: {
    js: [
      '#!/usr/bin/env node',
      "import { createRequire as __klaudeCreateRequire } from 'node:module';",
      'const require = __klaudeCreateRequire(import.meta.url);',
    ].join('\n'),
  },
  logLevel: 'warning',
});
chmodSync('dist/cli.js', 0o755);
