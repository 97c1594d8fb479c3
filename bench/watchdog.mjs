// The owner-death watchdog's cost (src/ownership/watchdog.ts): time for guardChild() to return, time
// until the `sh` is up, its memory (RSS/PSS from /proc), and how soon a guarded child is ended
// after its owner is SIGKILLed. Run: node bench/watchdog.mjs [n]
import './_env.mjs';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { guardChild } = await import('../src/ownership/watchdog.ts');

const n = Number(process.argv[2] ?? 20);
const kb = (pid, key) => {
  try {
    const file = key === 'Pss' ? `/proc/${pid}/smaps_rollup` : `/proc/${pid}/status`;
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const call = [];
const rss = [];
const pss = [];
for (let i = 0; i < n; i++) {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  const t0 = performance.now();
  const g = guardChild(child.pid, { graceMs: 1000 });
  call.push(performance.now() - t0);
  await sleep(100);
  rss.push(kb(g.pid, 'VmRSS'));
  pss.push(kb(g.pid, 'Pss'));
  g.dispose();
  child.kill('SIGKILL');
}

// Owner death → child ended: an owner process that guards a sleep, then SIGKILL it.
const ends = [];
for (let i = 0; i < Math.min(n, 10); i++) {
  const owner = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `
    const { spawn } = require('node:child_process');
    import('${new URL('../src/ownership/watchdog.ts', import.meta.url).pathname}').then(({ guardChild }) => {
      const c = spawn('sleep', ['60'], { stdio: 'ignore' });
      c.on('spawn', () => { guardChild(c.pid, { graceMs: 1000 }); console.log(c.pid); });
      setInterval(() => {}, 1000);
    });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const pid = await new Promise((r) => owner.stdout.once('data', (d) => r(Number(String(d).trim()))));
  const t0 = performance.now();
  owner.kill('SIGKILL');
  // Gone = no such pid, or a zombie (dead; reaping is up to whoever is pid 1 here).
  const gone = () => {
    try {
      const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) === 'Z';
    } catch {
      return true;
    }
  };
  while (!gone()) await sleep(2);
  ends.push(performance.now() - t0);
}

console.log(`guardChild() call: median ${median(call).toFixed(2)} ms, max ${Math.max(...call).toFixed(2)} ms (n=${n})`);
console.log(`watchdog sh: RSS median ${median(rss)} kB, PSS median ${median(pss)} kB`);
console.log(
  `owner SIGKILL → child gone: median ${median(ends).toFixed(0)} ms, max ${Math.max(...ends).toFixed(0)} ms (n=${ends.length})`,
);
