// `klaude ui` first full frame (spawn → the footer of the first frame on the terminal) against its
// floor: an Ink hello-world bundled the same way (esbuild, NODE_ENV=production), both under a real
// PTY. docs/ARCHITECTURE.md, Performance budget: within 1.05× of the floor (issue 37); RSS ≤ 80 MiB.
//   node bench/ui-first-frame.mjs        (after `npm run build`; BENCH_N=30 for more runs)
import './_env.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildInkHello, cli, fmt, makeUiHome, rssMiB, sleep, spawnTerm, stats } from './_ui-support.mjs';

const N = Number(process.env.BENCH_N ?? 15);
const WARMUP = 2;

const dir = mkdtempSync(path.join(tmpdir(), 'klaude-bench-ink-'));
const h = makeUiHome({ agents: 10 });
try {
  // The floor: Ink's hello world, bundled like dist/cli.js.
  const hello = await buildInkHello(dir);

  // Wall-clock time to the frame (runs interleaved, so load on the machine hits both alike).
  const floor = [];
  const ui = [];
  const rss = [];
  const floorRss = [];
  for (let i = 0; i < N + WARMUP; i++) {
    const a = spawnTerm(process.execPath, [hello], { cwd: h.project, env: h.env });
    const fa = await a.waitFor(/hello world/);
    const ma = rssMiB(a.pid);
    await a.stop();
    const b = spawnTerm(cli, ['ui'], { cwd: h.project, env: h.env });
    const fb = await b.waitFor(/\? help\s+q quit/);
    await sleep(300); // settle, then how much memory the dashboard holds
    const mem = rssMiB(b.pid);
    await b.stop();
    if (i >= WARMUP) {
      floor.push(fa);
      ui.push(fb);
      rss.push(mem);
      floorRss.push(ma);
    }
  }
  const f = stats(floor);
  const u = stats(ui);
  const r = stats(rss);
  console.log(
    `ui first frame (10 agents, 120x34): median ${fmt(u.median)} ms (p90 ${fmt(u.p90)}) vs bundled Ink hello-world ${fmt(f.median)} ms (p90 ${fmt(f.p90)}) ` +
      `→ ${fmt(u.median / f.median, 2)}× (goal ≤ 1.05×${u.median / f.median <= 1.05 ? ', met' : ', MISSED'}); ` +
      `RSS median ${fmt(r.median)} MiB (hello-world ${fmt(stats(floorRss).median)}; goal ≤ 80)`,
  );
} finally {
  h.cleanup();
  rmSync(dir, { recursive: true, force: true });
}
