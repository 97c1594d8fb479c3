// What a process's resident memory is made of (Linux /proc/<pid>/smaps), for the memory benches.
// RSS counts every page a process has mapped, shared or not: the node binary's code and read-only
// data (tens of MiB, the same pages in every node process) count in full in each. PSS splits a
// shared page between the processes mapping it, so it adds up across processes.
import { readFileSync } from 'node:fs';

/** The kind of one mapping, from its name and permissions. */
function kindOf(name, perms) {
  if (/\/node$|\/nodejs$/.test(name)) return 'binary';
  if (/\.node$/.test(name)) return 'addons';
  if (/\/lib[^/]*\.so/.test(name)) return 'libs';
  if (name === '[heap]') return 'malloc';
  if (name === '[stack]' || /^\[(vdso|vvar|vsyscall)/.test(name)) return 'other';
  if (name) return 'other';
  // V8's heap (256 KiB pages), malloc's thread arenas and large blocks, WebAssembly memory; code
  // (V8's code space, compiled WebAssembly) is mapped executable.
  return perms.includes('x') ? 'code' : 'anon';
}

/** Labels of the kinds, in the order printed. */
export const KINDS = {
  binary: 'node binary',
  libs: 'shared libraries',
  addons: 'native addons',
  anon: 'V8 heap + malloc arenas',
  malloc: 'malloc heap',
  code: 'JIT code',
  other: 'other',
};

/** { rss, pss, kinds: { kind: { rss, pss } } } in MiB for a process. */
export function memoryOf(pid) {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const kinds = {};
  let cur = null;
  let rss = 0;
  let pss = 0;
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const k = kindOf(head[2].trim(), head[1]);
      cur = kinds[k] ??= { rss: 0, pss: 0 };
      continue;
    }
    const f = /^(Rss|Pss):\s+(\d+) kB/.exec(line);
    if (!f || !cur) continue;
    const mib = Number(f[2]) / 1024;
    if (f[1] === 'Rss') {
      cur.rss += mib;
      rss += mib;
    } else {
      cur.pss += mib;
      pss += mib;
    }
  }
  return { rss, pss, kinds };
}

/** Sum of memoryOf over processes that still run. */
export function memoryOfAll(pids) {
  const all = { rss: 0, pss: 0, kinds: {} };
  for (const pid of pids) {
    let m;
    try {
      m = memoryOf(pid);
    } catch {
      continue;
    }
    all.rss += m.rss;
    all.pss += m.pss;
    for (const [k, v] of Object.entries(m.kinds)) {
      const a = (all.kinds[k] ??= { rss: 0, pss: 0 });
      a.rss += v.rss;
      a.pss += v.pss;
    }
  }
  return all;
}

/** "60.8 MiB RSS, PSS 21.4 (node binary 39.0, …)": one process's figures on a line. */
export function describe(m) {
  const f = (n) => n.toFixed(1);
  const parts = Object.entries(KINDS)
    .filter(([k]) => (m.kinds[k]?.rss ?? 0) >= 0.05)
    .map(([k, label]) => `${label} ${f(m.kinds[k].rss)}`);
  return `${f(m.rss)} MiB RSS, PSS ${f(m.pss)} (${parts.join(', ')})`;
}
