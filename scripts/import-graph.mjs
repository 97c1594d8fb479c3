// The project's import graph, read from the source text (no TypeScript needed), and the folder
// order that keeps it layered. Shared by scripts/lint.mjs and test/unit/import-graph.test.ts.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Bottom to top. A folder may import only folders listed before it (and itself); cli.ts, the
 * entry, stands on everything. docs/ARCHITECTURE.md (Layers) says what each layer is for.
 */
export const LAYERS = [
  'lib', // errors, logger, process and terminal helpers: imports nothing of the project
  'core', // ids, statuses, events, the tree: pure domain types and rules
  'config', // KLAUDE_HOME paths, config file, the claude binary
  'db', // schema, migrations, repositories (the only drizzle/better-sqlite3 user)
  'claude', // Claude Code's own paths: config dir, transcripts, the PATH shim
  'logs', // event log files: writer, reader, follow, summaries
  'hooks', // `klaude hook`: the settings klaude injects and the handler of each call
  'control', // the per-runtime control socket: framing, protocol, client, server
  'agents', // agent definitions (frontmatter, MCP, claude args)
  'recovery', // reconcile the DB with the processes that are really alive
  'runtimes', // background agents: one adapter per CLI, the runtime process
  'pty', // the PTY host for interactive sessions, its viewer and renderer
  'supervisor', // the foreground claude, switching, handlers of the control socket
  'ui', // the Ink dashboard: components, state, keymap, data feeds
  'dashboard', // the dashboard's composition root: wires supervisor/ and ui/ together
  'commands', // one file per CLI command
  'cli.ts', // the entry: argv → command
];

export function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(name) ? [p.split(path.sep).join('/')] : [];
  });
}

const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
export const importsOf = (text) => [...text.matchAll(importRe)].map((m) => m[1] ?? m[2]);

/** `src/pty/render.ts` → `pty`; `src/cli.ts` → `cli.ts`; outside src → undefined. */
export function layerOf(file, root = 'src') {
  const rel = path.posix.relative(root, file);
  if (rel.startsWith('..')) return undefined;
  return rel.split('/')[0];
}

/** Every project import that crosses a folder: { from, to, file, spec }. */
export function folderEdges(root = 'src') {
  const edges = [];
  for (const file of sourceFiles(root)) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const from = layerOf(file, root);
      const to = layerOf(target, root);
      if (to && from !== to) edges.push({ from, to, file, spec });
    }
  }
  return edges;
}

/** One cycle in a graph given as edges, as a list of nodes (first = last), or undefined. */
export function findCycle(edges) {
  const next = new Map();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map(); // 1 = on the current path, 2 = done
  const trail = [];
  const visit = (n) => {
    state.set(n, 1);
    trail.push(n);
    for (const m of next.get(n) ?? []) {
      if (state.get(m) === 1) return [...trail.slice(trail.indexOf(m)), m];
      if (!state.has(m)) {
        const found = visit(m);
        if (found) return found;
      }
    }
    trail.pop();
    state.set(n, 2);
    return undefined;
  };
  for (const n of next.keys()) {
    if (state.has(n)) continue;
    const found = visit(n);
    if (found) return found;
  }
  return undefined;
}
