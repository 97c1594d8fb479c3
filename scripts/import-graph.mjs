// The project's import graph, read from the source text (no TypeScript needed), and the folder
// order that keeps it layered. Shared by scripts/lint.mjs and test/unit/import-graph.test.ts.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Bottom to top. A folder may import only folders listed before it (and itself); cli.ts, the
 * entry, stands on everything. docs/ARCHITECTURE.md (Layers) says what each layer is for.
 */
export const LAYERS = [
  'lib', // errors, logger, process and terminal helpers, escapes, line decoding, hashing: nothing of the project
  'core', // ids, statuses, events, the session tree: pure domain types and rules
  'config', // KLAUDE_HOME paths, the config file and its schema, the YAML parse cache
  'db', // schema, migrations, connections, and every SQL statement (repos/)
  'claude', // Claude Code's own facts: config dir, transcripts and their follower, the PATH shim
  'logs', // session event logs: writer, reader, follow, format, summaries
  'hooks', // `klaude hook`: the settings klaude injects and the handler of each call
  'control', // the control sockets of supervisors and runtimes: protocol, client, server, discovery
  'agent-types', // agent definitions: frontmatter, validation, MCP servers, claude args
  'git', // all git IO: worktrees, changes, diffs, merge, prune
  'sandbox', // where agents' commands may run: engine check, boundary, the agent channel's paths, wire and client
  'ownership', // who owns which process: watchdogs, liveness, conversation claims, reconcile
  'zone-client', // reaching a zone's link from any klaude process: its socket, its protocol, starting it
  'adapters', // one folder per agent CLI (adapter + normaliser); the interface and the registry
  'agent-ops', // what commands do to agents: start, launch, message, follow, queue, recover, approvals
  'runtime', // the detached `klaude __runtime` process that drives one agent's CLI
  'ptyd', // the PTY server process (`klaude __ptyd`): hosts, screens, framing, its control socket
  'pty', // clients of the PTY server: talk, attach, viewers, starting a session
  'doctor', // `klaude doctor`'s checks as data: claude and Node, hooks probe, DB, directories, processes
  'zones', // agents on other machines over OpenSSH: the link, the serve end, the mirror, setup and check
  'supervisor', // the foreground claude: launch, switcher (checkout), control handlers
  'feeds', // the dashboard's live data: sessions, log, PTY preview, clock (no React)
  'ui', // the Ink dashboard: components, state, keymap; ui/render patches Ink's output
  'dashboard', // the dashboard's composition root: wires supervisor/, feeds/ and ui/ together
  'web', // `klaude web`: the detached web server (node:http + polka, SSE, ws) and its page (React, src/web/page)
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

/** `src/ptyd/render.ts` → `ptyd`; `src/cli.ts` → `cli.ts`; outside src → undefined. */
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

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (or `.tsx`), the file it names; undefined if none. */
function targetFile(file, spec, known) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  const stem = base.replace(/\.(js|ts|tsx)$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`].find((c) => known.has(c));
}

/** Every project import between two files, type-only and dynamic ones included: { from, to }. */
export function fileEdges(root = 'src') {
  const files = sourceFiles(root);
  const known = new Set(files);
  const edges = [];
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const to = targetFile(file, spec, known);
      if (to && to !== file) edges.push({ from: file, to });
    }
  }
  return edges;
}

/** The import circles among files: each strongly connected group of two or more, sorted (Tarjan). */
export function fileCircles(edges) {
  const next = new Map();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const visit = (n) => {
    index.set(n, index.size);
    low.set(n, index.get(n));
    stack.push(n);
    onStack.add(n);
    for (const m of next.get(n) ?? []) {
      if (!index.has(m)) {
        visit(m);
        low.set(n, Math.min(low.get(n), low.get(m)));
      } else if (onStack.has(m)) low.set(n, Math.min(low.get(n), index.get(m)));
    }
    if (low.get(n) !== index.get(n)) return;
    const group = [];
    let m;
    do {
      m = stack.pop();
      onStack.delete(m);
      group.push(m);
    } while (m !== n);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const n of next.keys()) if (!index.has(n)) visit(n);
  return groups;
}

/**
 * File names that several folders may share because each copy plays the same part: every agent CLI
 * has its folder under adapters/ with an `adapter.ts` and a `normaliser.ts`. Any other name may be
 * used by at most two files, so a name in an editor tab or a stack trace says which idea it holds.
 */
export const ROLE_NAMES = new Map([
  ['adapter.ts', "an agent CLI's adapter (adapters/<cli>/)"],
  ['normaliser.ts', "an agent CLI's output → AgentEvents (adapters/<cli>/)"],
]);

/** Base names used by three or more files under root and not in ROLE_NAMES: [name, files][]. */
export function crowdedNames(root = 'src') {
  const byName = new Map();
  for (const f of sourceFiles(root))
    byName.set(path.posix.basename(f), [...(byName.get(path.posix.basename(f)) ?? []), f]);
  return [...byName].filter(([name, files]) => files.length >= 3 && !ROLE_NAMES.has(name));
}
