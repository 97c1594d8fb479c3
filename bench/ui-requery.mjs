// The dashboard's session tree is re-read only when this project's rows changed. 1,000 sessions
// in this project, and an agent of another project writing its row 20 times a second (activity,
// last text, as a runtime does): the dashboard's feed (real file DB, real file notifications)
// should run its cheap probe and no re-query. Then one write in this project: exactly one.
// Runs the feed from src/ under tsx (node --import tsx), the rest with plain better-sqlite3.
//   node bench/ui-requery.mjs         (BENCH_WRITE_S=5 seconds of the other project's writes)
import './_env.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const repo = path.resolve(path.dirname(here), '..');
const require = createRequire(path.join(repo, 'package.json'));
const WRITE_S = Number(process.env.BENCH_WRITE_S ?? 5);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (process.env.KLAUDE_BENCH_CHILD !== '1') {
  const r = spawnSync(process.execPath, ['--import', 'tsx', here], {
    env: { ...process.env, KLAUDE_BENCH_CHILD: '1' },
    stdio: 'inherit',
    cwd: repo,
  });
  process.exit(r.status ?? 1);
}

const { openDb } = await import(path.join(repo, 'src/db/client.ts'));
const { openFastDb } = await import(path.join(repo, 'src/db/fast.ts'));
const { SessionsFeed } = await import(path.join(repo, 'src/feeds/sessions-feed.ts'));

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-requery-')));
try {
  const home = path.join(root, 'klaude');
  openDb(home).close(); // created and migrated
  const Database = require('better-sqlite3');
  const seed = new Database(path.join(home, 'sessions.db'));
  const A = 'a'.repeat(24);
  const B = 'b'.repeat(24);
  seed.prepare('INSERT INTO projects (id, root_path) VALUES (?, ?), (?, ?)').run(A, '/bench/a', B, '/bench/b');
  const ins = seed.prepare(
    'INSERT INTO sessions (id, project_id, parent_id, type, status, prompt, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const now = Date.now();
  seed.transaction(() => {
    for (let i = 0; i < 1000; i++) {
      const id = `01A${String(i).padStart(23, '0')}`;
      ins.run(
        id,
        A,
        i % 10 === 0 ? null : `01A${String(i - (i % 10)).padStart(23, '0')}`,
        i % 10 ? 'coder' : 'tui',
        i % 7 ? 'done' : 'idle',
        `task ${i}`,
        now - i * 1000,
        now - i * 1000,
      );
    }
    ins.run('01B0000000000000000000000', B, null, 'coder', 'running', 'other project agent', now, now);
  })();
  seed.close();

  const fast = openFastDb(home);
  const feed = new SessionsFeed({ db: fast, projectId: A, frameMs: 33 });
  await sleep(300);
  const q0 = feed.queries;
  const p0 = feed.probes;

  // Another project's agent: its own process, its own connection, 20 writes a second.
  const writer = spawn(
    process.execPath,
    [
      '-e',
      `const D=require(${JSON.stringify(require.resolve('better-sqlite3'))});const db=new D(${JSON.stringify(path.join(home, 'sessions.db'))});
       db.pragma('busy_timeout = 5000');const up=db.prepare("UPDATE sessions SET activity = ?, last_text = ?, updated_at = ? WHERE id = '01B0000000000000000000000'");
       let n=0;const t=setInterval(()=>{up.run(n%2?'writing':'Bash: npm test','text '+n,Date.now());if(++n>=${WRITE_S * 20}){clearInterval(t);db.close();}},50);`,
    ],
    { stdio: 'inherit' },
  );
  await new Promise((r) => writer.on('exit', r));
  await sleep(300);
  const otherQueries = feed.queries - q0;
  const otherProbes = feed.probes - p0;

  // One write in this project: one re-query.
  const mine = new Database(path.join(home, 'sessions.db'));
  mine
    .prepare("UPDATE sessions SET activity = 'thinking', updated_at = ? WHERE id = ?")
    .run(Date.now(), `01A${'0'.repeat(23)}`);
  mine.close();
  await sleep(300);
  const ownQueries = feed.queries - q0 - otherQueries;
  feed.close();
  fast.close();
  console.log(
    `ui re-query, 1,000 sessions, another project's agent writing ${WRITE_S * 20} times in ${WRITE_S}s: ` +
      `${otherQueries} re-queries (goal 0), ${otherProbes} cheap probes; one write in this project: ${ownQueries} re-query (goal 1)`,
  );
  if (otherQueries !== 0 || ownQueries !== 1) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
