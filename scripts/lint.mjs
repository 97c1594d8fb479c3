// The house rules of docs/ARCHITECTURE.md that the type checker cannot see:
//   - only src/db imports drizzle-orm / better-sqlite3; only src/ptyd imports node-pty;
//   - src/core imports nothing of the project;
//   - src/ui never spawns processes; Ink/React load only in the dashboard's own files;
//   - every SQL statement lives in src/db;
//   - files stay small (split above ~400 lines); functions stay under 80 lines (eslint.config.js);
//   - no folder under src/ holds more than 35 files (split a crowded one by what its files act on);
//   - folders import only folders below them in LAYERS (scripts/import-graph.mjs), types included;
//   - no import circles between files, types included;
//   - no file name used by three or more files, unless it names the same part in each (ROLE_NAMES);
//   - docs/ARCHITECTURE.md's layer table lists LAYERS in order;
//   - every end-to-end file takes its homes and its stand-in from test/e2e/agent-home.ts.
// Prints one line per problem and exits 1 if there is any.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  LAYERS,
  crowdedNames,
  fileCircles,
  fileEdges,
  folderEdges,
  importsOf as imports,
  sourceFiles as files,
} from './import-graph.mjs';

const ROOT = 'src';
const MAX_LINES = 400;
const MAX_FILES = 35;

/** Folders under root holding more than MAX_FILES files (subfolders not counted): { dir, count }. */
function crowdedFolders(dir) {
  const entries = readdirSync(dir, { withFileTypes: true });
  const count = entries.filter((e) => e.isFile()).length;
  const here = count > MAX_FILES ? [{ dir, count }] : [];
  return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => crowdedFolders(path.join(dir, e.name)))];
}

const isTypeOnly = (text, spec) =>
  new RegExp(`import\\s+type\\s[^;]*['"]${spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`).test(text);

const UI_OWNERS = (f) =>
  f.startsWith('src/ui/') ||
  f.startsWith('src/dashboard/') ||
  f === 'src/commands/views/ui.ts' ||
  f.startsWith('src/web/page/');

const rules = [
  {
    what: 'drizzle-orm/better-sqlite3 outside src/db',
    bad: (f, spec) => /^(drizzle-orm|better-sqlite3)(\/|$)/.test(spec) && !f.startsWith('src/db/'),
  },
  { what: 'node-pty outside src/ptyd', bad: (f, spec) => spec === 'node-pty' && !f.startsWith('src/ptyd/') },
  {
    what: 'src/core importing the project',
    bad: (f, spec) =>
      f.startsWith('src/core/') &&
      spec.startsWith('.') &&
      !path.normalize(path.join(path.dirname(f), spec)).startsWith('src/core/'),
  },
  {
    what: 'src/ui spawning processes',
    bad: (f, spec) => f.startsWith('src/ui/') && /^(node:)?child_process$/.test(spec),
  },
  { what: 'Ink/React outside the dashboard', bad: (f, spec) => /^(ink|react)(\/|$)/.test(spec) && !UI_OWNERS(f) },
];

/** SQL in a string: a statement's opening words, or a prepared statement. */
const SQL = /\.prepare\(|\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b/;

/**
 * docs/ARCHITECTURE.md's layer table must name LAYERS, in order: the page a newcomer reads and the
 * order this script enforces cannot drift apart.
 */
function layerTableProblems() {
  const doc = readFileSync('docs/ARCHITECTURE.md', 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Layers')) ?? '';
  const named = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1].replace(/\/$/, ''));
  if (named.join(' ') === LAYERS.join(' ')) return [];
  return [
    `docs/ARCHITECTURE.md: the Layers table names ${named.join(', ') || 'nothing'}; LAYERS is ${LAYERS.join(', ')}`,
  ];
}

/**
 * The web server answers through node:http: on Node 20 the Fetch API's globals load undici and
 * compile its parser (~12 MiB resident, src/web/http-io.ts), past the idle server's budget.
 */
const FETCH_API = /\bnew (Request|Response|Headers)\(|\bfetch\(|from '(hono|@hono\/[^']+|undici)'/;
const WEB_SERVER = (f) => f.startsWith('src/web/') && !f.startsWith('src/web/page/');

/** What makes a home or the Messages-API stand-in by hand: the fixture does, once per file. */
const OWN_SETUP = ['makeTempHome', 'startMockAnthropic', 'supervisorHome', 'makeDemoHome', 'uiHome'];

/**
 * An end-to-end file (test/e2e/*.test.ts) calls useAgentHomes (test/e2e/agent-home.ts) and imports
 * none of OWN_SETUP: one set-up of temp home, stand-in, config and clean-up, not one per file.
 */
function e2eFixtureProblems() {
  const dir = 'test/e2e';
  const out = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.test.ts'))) {
    const f = `${dir}/${name}`;
    const text = readFileSync(f, 'utf8');
    const imported = [...text.matchAll(/^import\s+\{([^}]*)\}\s+from/gm)].flatMap((m) =>
      m[1]
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n && !n.startsWith('type ')),
    );
    const own = OWN_SETUP.filter((n) => imported.some((i) => i === n || i.startsWith(`${n} as `)));
    const hint = 'take homes and the stand-in from useAgentHomes (test/e2e/agent-home.ts), extending it if needed';
    if (own.length) out.push(`${f}: makes its own set-up (${own.join(', ')}): ${hint}`);
    else if (!/\buseAgentHomes\(/.test(text)) out.push(`${f}: does not call useAgentHomes: ${hint}`);
  }
  return out;
}

const problems = [];
for (const f of files(ROOT)) {
  const text = readFileSync(f, 'utf8');
  for (const spec of imports(text)) {
    if (isTypeOnly(text, spec)) continue; // erased at build time
    for (const r of rules) if (r.bad(f, spec)) problems.push(`${f}: ${r.what} ('${spec}')`);
  }
  if (!f.startsWith('src/db/') && SQL.test(text))
    problems.push(`${f}: SQL outside src/db (put the statement in a repository)`);
  if (WEB_SERVER(f) && FETCH_API.test(text))
    problems.push(`${f}: the Fetch API in the web server (it loads undici; use http-io.ts)`);
  const lines = text.split('\n').length;
  if (lines > MAX_LINES) problems.push(`${f}: ${lines} lines (split above ${MAX_LINES})`);
}
const rank = new Map(LAYERS.map((name, i) => [name, i]));
for (const { from, to, file, spec } of folderEdges(ROOT)) {
  if (!rank.has(from)) problems.push(`${file}: folder '${from}' is not in LAYERS (scripts/import-graph.mjs)`);
  else if (!rank.has(to)) problems.push(`${file}: imports folder '${to}', which is not in LAYERS ('${spec}')`);
  else if (rank.get(to) > rank.get(from))
    problems.push(`${file}: ${from}/ imports ${to}/, a layer above it ('${spec}')`);
}
for (const group of fileCircles(fileEdges(ROOT))) problems.push(`import circle: ${group.join(' ↔ ')}`);
for (const [name, where] of crowdedNames(ROOT))
  problems.push(`${where.length} files named ${name}: ${where.join(', ')} (rename by what each holds)`);
for (const { dir, count } of crowdedFolders(ROOT))
  problems.push(
    `${dir}/: ${count} files (at most ${MAX_FILES} a folder; split it into subfolders by what the files act on)`,
  );
for (const p of layerTableProblems()) problems.push(p);
for (const p of e2eFixtureProblems()) problems.push(p);
for (const p of problems) console.log(p);
console.log(problems.length ? `lint: ${problems.length} problem(s)` : 'lint: ok');
process.exitCode = problems.length ? 1 : 0;
