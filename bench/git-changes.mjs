// What reading an agent's changes from git costs (issue 16): the `git status` snapshot a run takes
// before and after (shared tree), and the worktree diff against the base in a scratch index (the
// completion summary of a worktree agent, `klaude diff`, the dashboard's `c`).
// A repository of BENCH_FILES committed files (default 5,000) with 50 dirty and 20 untracked.
//   node bench/git-changes.mjs        (BENCH_N=20 runs per figure, BENCH_FILES=20000)
import './_env.mjs';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const here = fileURLToPath(import.meta.url);
const changes = await tsImport('../src/git/changes.ts', here);
const N = Number(process.env.BENCH_N ?? 20);
const FILES = Number(process.env.BENCH_FILES ?? 5000);

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-git-')));
const git = (...a) =>
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', ...a], { cwd: root, stdio: 'pipe' });
try {
  git('init', '-q', '-b', 'main');
  for (let i = 0; i < FILES; i++) {
    const d = path.join(root, `d${i % 50}`);
    if (i < 50) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const base = git('rev-parse', 'HEAD').toString().trim();
  for (let i = 0; i < 50; i++) writeFileSync(path.join(root, `d${i}`, `f${i}.ts`), `changed ${i}\n`);
  for (let i = 0; i < 20; i++) writeFileSync(path.join(root, `new${i}.ts`), `new ${i}\n`);

  const time = (fn) => {
    fn(); // warm the file cache
    const ms = [];
    for (let i = 0; i < N; i++) {
      const t = process.hrtime.bigint();
      fn();
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    ms.sort((a, b) => a - b);
    return `median ${ms[Math.floor(ms.length / 2)].toFixed(1)} ms, p90 ${ms[Math.floor(ms.length * 0.9)].toFixed(1)} ms`;
  };
  const before = changes.snapshotTree(root);
  console.log(`git-changes (${FILES} files, 50 dirty, 20 untracked; ${N} runs)`);
  console.log(`  snapshot (git status + stat of dirty files): ${time(() => changes.snapshotTree(root))}`);
  console.log(`  run end (snapshot + compare):                ${time(() => changes.changesSince(before))}`);
  console.log(`  worktree changes vs base (scratch index):    ${time(() => changes.worktreeChanges(root, base))}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
