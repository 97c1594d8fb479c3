// Run every bench/*.mjs except this one and pair.mjs (before/after of named benches), one after another (they time processes: running
// them in parallel would measure each other), and print their lines, each bench under a line that
// says the load it was taken at. Every bench and its floor run without NODE_EXTRA_CA_CERTS and
// NODE_OPTIONS (bench/_env.mjs).
//   npm run bench            (builds first)     node bench/run.mjs [name-filter]
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage, UNSET } from './_env.mjs';

const dir = path.dirname(fileURLToPath(import.meta.url));
const self = path.basename(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const benches = readdirSync(dir)
  .filter(
    (f) =>
      f.endsWith('.mjs') && f !== self && f !== 'pair.mjs' && !f.startsWith('_') && (!filter || f.includes(filter)),
  )
  .sort();
let failed = 0;
console.log(`(every bench and its floor with ${UNSET.join(' and ')} unset)`);
for (const file of benches) {
  console.log(`— ${file} (load ${loadAverage()})`);
  const r = spawnSync(process.execPath, [path.join(dir, file)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const lines = r.stdout.trimEnd();
  if (lines) console.log(lines);
  if (r.status !== 0) {
    failed++;
    console.log(`${file}: FAILED (exit ${r.status ?? r.signal})\n${r.stderr.trimEnd()}`);
  }
}
process.exitCode = failed ? 1 : 0;
