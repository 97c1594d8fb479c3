// `klaude logs -n 50` on a log whose last line is 32 MiB, against its floor measured in the same
// run: a node process that reads the 32 MiB once and writes it out (goal ≤ 1.5×, issue 37). Also the reader
// alone (readTail) against one readFile of the same file plus parsing its last line, in one
// process (under tsx): reading backwards in steps must cost about one read, not one per step.
// Runs are interleaved (floor, klaude, floor, …) so machine noise hits both alike.
//   node bench/logs-tail.mjs          (after `npm run build`; BENCH_N=5 runs, BENCH_MIB=32, BENCH_KEEP=1;
//                                      BENCH_KLAUDE_CLI=<other>/dist/cli.js runs another build: bench/pair.mjs)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(here), '..');
const cli = process.env.BENCH_KLAUDE_CLI ?? path.join(repo, 'dist', 'cli.js');
const GOAL = 1.5;
const N = Number(process.env.BENCH_N ?? 5);
const MIB = Number(process.env.BENCH_MIB ?? 32);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const id = '01BENCHTAIL000000000000000';
const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-tail-')));
try {
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  const env = { ...process.env, HOME: root, KLAUDE_HOME: home };
  for (const k of Object.keys(env)) if (k.startsWith('KLAUDE_') && k !== 'KLAUDE_HOME') delete env[k];
  const made = spawnSync(process.execPath, [cli, 'sessions'], { cwd: project, env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`klaude sessions failed: ${made.stderr}`);
  const hash = createHash('sha256').update(project).digest('hex').slice(0, 24);
  const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
  const db = new Database(path.join(home, 'sessions.db'));
  const log = path.join(root, 'big.ndjson');
  db.prepare('INSERT INTO projects (id, root_path) VALUES (?, ?)').run(hash, project);
  db.prepare(
    "INSERT INTO sessions (id, project_id, type, status, log_path, created_at, updated_at) VALUES (?, ?, 'coder', 'done', ?, 1, 1)",
  ).run(id, hash, log);
  db.close();
  // 49 ordinary events, then one text event of MIB MiB (lines of 100 characters).
  const small = Array.from({ length: 49 }, (_, i) =>
    JSON.stringify({ ts: i, type: 'tool_call', id: `t${i}`, name: 'Bash', summary: `step ${i}` }),
  ).join('\n');
  writeFileSync(log, `${small}\n`);
  const lineOf100 = `${'x'.repeat(99)}\n`;
  const text = lineOf100.repeat(Math.ceil((MIB * 1024 * 1024) / 100));
  appendFileSync(log, `${JSON.stringify({ ts: 50, type: 'text', text })}\n`);

  const floorCode = `const fs=require('fs');const b=fs.readFileSync(${JSON.stringify(log)});process.stdout.write(b);`;
  const floor = [];
  const klaude = [];
  for (let i = 0; i < N + 1; i++) {
    let t0 = process.hrtime.bigint();
    const f = spawnSync(process.execPath, ['-e', floorCode], { maxBuffer: 1 << 30 });
    const tf = ms(t0);
    t0 = process.hrtime.bigint();
    const k = spawnSync(process.execPath, [cli, 'logs', id, '-n', '50'], { cwd: project, env, maxBuffer: 1 << 30 });
    const tk = ms(t0);
    if (k.status !== 0 || f.status !== 0) throw new Error(`run failed: ${k.stderr}`);
    if (k.stdout.length < MIB * 1024 * 1024) throw new Error(`klaude logs printed only ${k.stdout.length} bytes`);
    if (i > 0) {
      floor.push(tf);
      klaude.push(tk);
    }
  }
  // The reader alone, in one process (tsx): readTail vs one readFile.
  const inproc = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `const {readTail}=await import(${JSON.stringify(path.join(repo, 'src/logs/reader.ts'))});const fs=await import('node:fs/promises');
       const r=[],t=[];for(let i=0;i<${N + 1};i++){let a=process.hrtime.bigint();const b=await fs.readFile(${JSON.stringify(log)});const nl=b.lastIndexOf(10,b.length-2);JSON.parse(b.subarray(nl+1,b.length-1).toString('utf8'));const x=Number(process.hrtime.bigint()-a)/1e6;
       a=process.hrtime.bigint();const tail=await readTail(${JSON.stringify(log)},50);const y=Number(process.hrtime.bigint()-a)/1e6;if(tail.events.length!==50)throw new Error('tail');if(i>0){r.push(x);t.push(y);}}
       const m=(xs)=>[...xs].sort((a,b)=>a-b)[Math.floor(xs.length/2)];console.log(JSON.stringify({read:m(r),tail:m(t)}));`,
    ],
    { cwd: repo, encoding: 'utf8' },
  );
  const reader = inproc.status === 0 ? JSON.parse(inproc.stdout.trim().split('\n').at(-1)) : null;
  const f = median(floor);
  const k = median(klaude);
  console.log(
    `logs -n 50, last line ${MIB} MiB: klaude ${k.toFixed(0)} ms vs floor (node reads ${MIB} MiB once and writes it) ${f.toFixed(0)} ms = ${(k / f).toFixed(2)}× (goal ≤ ${GOAL}×${k / f <= GOAL ? ', met' : ', MISSED'})` +
      (reader
        ? `; reader alone: readTail ${reader.tail.toFixed(0)} ms vs one readFile + parse of the last line ${reader.read.toFixed(0)} ms = ${(reader.tail / reader.read).toFixed(2)}×`
        : `; reader alone: failed (${inproc.stderr.trim().split('\n').at(-1)})`) +
      ` · medians of ${N} interleaved runs`,
  );
} finally {
  if (process.env.BENCH_KEEP)
    console.log(`kept ${root} (KLAUDE_HOME=${root}/klaude HOME=${root}, cwd ${root}/project, session ${id})`);
  else rmSync(root, { recursive: true, force: true });
}
