// Summarise a V8 CPU profile (node --cpu-prof; the benches' BENCH_UI_PROF) by where the time went:
// self time by function and by source file, and total (self + callees) by function, with places in
// the minified bundles mapped back to src/ through their source maps.
//   node scripts/cpu-profile.mjs <file.cpuprofile> [top=30] [from=0 s]   (samples from `from` s after the start)
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { SourceMapConsumer } = require('source-map-js');

const [file, topArg, fromArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/cpu-profile.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const maps = new Map();
const mapOf = (url) => {
  if (!url.startsWith('file://')) return null;
  if (!maps.has(url)) {
    const p = `${fileURLToPath(url)}.map`;
    maps.set(url, existsSync(p) ? new SourceMapConsumer(JSON.parse(readFileSync(p, 'utf8'))) : null);
  }
  return maps.get(url);
};
const short = (s) => s.replace(/^.*?node_modules\//, '~/').replace(/^(\.\.\/)+/, '');
/** A node's function, named by its source place (and its name, when the bundle kept one). */
const where = (cf) => {
  const m = mapOf(cf.url);
  if (m) {
    const pos = { line: cf.lineNumber + 1, column: cf.columnNumber };
    let o = m.originalPositionFor(pos);
    if (!o.source) o = m.originalPositionFor({ ...pos, bias: SourceMapConsumer.LEAST_UPPER_BOUND });
    if (o.source)
      return { fn: `${o.name ?? cf.functionName ?? '?'} ${short(o.source)}:${o.line}`, src: short(o.source) };
  }
  const src = cf.url ? short(cf.url.replace(/^file:\/\//, '')) : cf.functionName;
  return { fn: `${cf.functionName || '(anon)'} ${src}:${cf.lineNumber + 1}`, src: src || '(native)' };
};

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Time per node from the samples (timeDeltas[i] is the time before sample i).
const time = new Map();
let total = 0;
let at = 0;
const from = Number(fromArg ?? 0) * 1000;
for (let i = 0; i < prof.samples.length; i++) {
  const dt = (prof.timeDeltas[i + 1] ?? 0) / 1000;
  at += (prof.timeDeltas[i] ?? 0) / 1000;
  if (at < from) continue;
  time.set(prof.samples[i], (time.get(prof.samples[i]) ?? 0) + dt);
  total += dt;
}
const self = new Map();
const bySrc = new Map();
const incl = new Map();
let idle = 0;
for (const [id, t] of time) {
  const n = byId.get(id);
  const w = where(n.callFrame);
  if (n.callFrame.functionName === '(idle)') idle += t;
  self.set(w.fn, (self.get(w.fn) ?? 0) + t);
  bySrc.set(w.src, (bySrc.get(w.src) ?? 0) + t);
  // Each function once per sample's stack, however often it recurses.
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const f = where(byId.get(at).callFrame).fn;
    if (seen.has(f)) continue;
    seen.add(f);
    incl.set(f, (incl.get(f) ?? 0) + t);
  }
}
const busy = total - idle;
const print = (title, m) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${v.toFixed(0).padStart(8)} ms ${((v / busy) * 100).toFixed(1).padStart(5)} %  ${k}`);
};
console.log(
  `${file}: ${(total / 1000).toFixed(1)} s sampled, ${(busy / 1000).toFixed(2)} s not idle (percentages of that)`,
);
print('self, by function', self);
print('self, by source file', bySrc);
print('total (self + callees), by function', incl);
