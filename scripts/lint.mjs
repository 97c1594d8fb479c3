// House rules from ARCHITECTURE.md §3–4 that the type checker can't see:
//   - only src/db imports drizzle-orm / better-sqlite3; only src/pty imports node-pty;
//   - src/core imports nothing of the project;
//   - src/ui never spawns processes; Ink/React load only in the dashboard's own files;
//   - files stay small (split above ~400 lines);
//   - folders import only folders below them in LAYERS (scripts/import-graph.mjs), types included.
// Prints one line per problem and exits 1 if there is any.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LAYERS, folderEdges, importsOf as imports, sourceFiles as files } from './import-graph.mjs';

const ROOT = 'src';
const MAX_LINES = 400;

const isTypeOnly = (text, spec) =>
  new RegExp(`import\\s+type\\s[^;]*['"]${spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`).test(text);

const UI_OWNERS = (f) => f.startsWith('src/ui/') || f.startsWith('src/dashboard/') || f === 'src/commands/ui.ts';

const rules = [
  {
    what: 'drizzle-orm/better-sqlite3 outside src/db',
    bad: (f, spec) => /^(drizzle-orm|better-sqlite3)(\/|$)/.test(spec) && !f.startsWith('src/db/'),
  },
  { what: 'node-pty outside src/pty', bad: (f, spec) => spec === 'node-pty' && !f.startsWith('src/pty/') },
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

const problems = [];
for (const f of files(ROOT)) {
  const text = readFileSync(f, 'utf8');
  for (const spec of imports(text)) {
    if (isTypeOnly(text, spec)) continue; // erased at build time
    for (const r of rules) if (r.bad(f, spec)) problems.push(`${f}: ${r.what} ('${spec}')`);
  }
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
for (const p of problems) console.log(p);
console.log(problems.length ? `lint: ${problems.length} problem(s)` : 'lint: ok');
process.exitCode = problems.length ? 1 : 0;
