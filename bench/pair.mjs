// Before and after in one run: each named bench against another build (BENCH_KLAUDE_CLI, the
// dashboard benches' `klaude`) and against this one, alternately, each line under the load it was
// taken at. The benches and their floors are this tree's; only the klaude they run differs.
//   node bench/pair.mjs <other>/dist/cli.js ui-pty-stream ui-idle-cpu [--rounds N]
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAverage } from './_env.mjs';

const dir = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const rounds = at === -1 ? 1 : Number(args.splice(at, 2)[1]);
const [before, ...names] = args;
if (!before || names.length === 0) {
  console.error('usage: node bench/pair.mjs <other build>/dist/cli.js <bench> [<bench>…] [--rounds N]');
  process.exit(2);
}
let failed = 0;
for (let r = 0; r < rounds; r++) {
  for (const name of names) {
    for (const [label, cli] of [
      ['before', path.resolve(before)],
      ['after', path.join(dir, '..', 'dist', 'cli.js')],
    ]) {
      console.log(`— ${name} ${label} (${cli}; load ${loadAverage()})`);
      const res = spawnSync(process.execPath, [path.join(dir, `${name.replace(/\.mjs$/, '')}.mjs`)], {
        env: { ...process.env, BENCH_KLAUDE_CLI: cli },
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      });
      if (res.stdout.trim()) console.log(res.stdout.trimEnd());
      if (res.status !== 0) {
        failed++;
        console.log(`FAILED (exit ${res.status ?? res.signal})\n${res.stderr.trimEnd()}`);
      }
    }
  }
}
process.exitCode = failed ? 1 : 0;
