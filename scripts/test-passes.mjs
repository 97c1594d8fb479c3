// What `npm test` runs after the build and the lint: every pass, each reported, any failure failing
// the whole (all passes run, so the log names each one's result).
//   1. pinned: every suite against the pinned claude (the devDependency);
//   2. lazy init: the suites of deaths, the queue and recovery again, in a PID namespace whose init
//      reaps orphans only every 3 s, then in one whose init never does (scripts/lazy-init.py) — as
//      a VM's slow init and a container without --init do. A dead process stays a zombie there
//      until it is reaped: kill(0) reaches it and /proc still lists it with its start time;
//   3. current: the suites that run claude, against Claude Code's current release
//      (scripts/claude-current.mjs, docs/claude-versions.md);
//   4. package: the package a person installs — npm pack, installed into a temp prefix, run from
//      there with nothing of the clone on PATH (test/support/package-smoke.ts).
// Extra arguments go to vitest in every pass. `--pass <name>` runs one pass only.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installOrExit, testCurrent, vitest } from './claude-current.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where a death must be noticed whatever the init: the runtime's death notice, the queue, recovery, the watchdogs. */
const LAZY_INIT_SUITES = [
  'test/integration/death-notice.test.ts',
  'test/integration/run-queue.test.ts',
  'test/integration/run-recovery.test.ts',
  'test/integration/queue-launch-env.test.ts',
  'test/integration/crash-matrix.test.ts',
  'test/integration/process-ownership.test.ts',
  'test/integration/watchdog-shell.test.ts',
  'test/unit/process-identity.test.ts',
];

const LAZY_MODES = [
  { name: 'lazy init (reaps every 3 s)', args: ['--reap-every', '3'] },
  { name: 'lazy init (never reaps)', args: ['--never'] },
];

/**
 * `unshare` for a new PID namespace with its own /proc: as root directly, otherwise inside a user
 * namespace of our own (no privilege needed where the kernel allows them).
 */
function unshareArgs() {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return [...(asRoot ? [] : ['--user', '--map-root-user']), '--pid', '--fork', '--mount-proc'];
}

function lazyInitPass(mode, extra) {
  if (process.platform !== 'linux') {
    console.error(`test-passes: ${mode.name} needs Linux PID namespaces (unshare); this is ${process.platform}`);
    return 1;
  }
  const probe = spawnSync('unshare', [...unshareArgs(), 'true'], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? probe.error.message : String(probe.stderr).trim();
    console.error(`test-passes: ${mode.name}: cannot make a PID namespace: ${why}`);
    console.error('test-passes: hint: install util-linux (unshare) and allow user namespaces, or run as root');
    return 1;
  }
  console.log(`test-passes: ${LAZY_INIT_SUITES.length} suites under a ${mode.name}`);
  const r = spawnSync(
    'unshare',
    [
      ...unshareArgs(),
      'python3',
      join(root, 'scripts', 'lazy-init.py'),
      ...mode.args,
      '--',
      join(root, 'node_modules', '.bin', 'vitest'),
      'run',
      ...LAZY_INIT_SUITES,
      ...extra,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, KLAUDE_TEST_CLAUDE: 'pinned' } },
  );
  if (r.error) throw r.error;
  return r.status ?? 1;
}

const PASSES = {
  pinned: (extra) => {
    console.log('test-passes: every suite against the pinned claude (the devDependency)');
    return vitest(extra, { KLAUDE_TEST_CLAUDE: 'pinned' });
  },
  lazy: (extra) => {
    let worst = 0;
    for (const mode of LAZY_MODES) {
      const status = lazyInitPass(mode, extra);
      if (worst === 0) worst = status;
    }
    return worst;
  },
  current: (extra) => testCurrent(extra),
  package: () => {
    console.log('test-passes: the package (npm pack, installed into a temp prefix, run from there)');
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const r = spawnSync(tsx, [join(root, 'test', 'support', 'package-smoke.ts')], { cwd: root, stdio: 'inherit' });
    if (r.error) throw r.error;
    return r.status ?? 1;
  },
};

function main(argv) {
  let only;
  const extra = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--pass') only = argv[++i];
    else extra.push(argv[i]);
  }
  if (only !== undefined && !(only in PASSES)) {
    console.error(`test-passes: no pass '${only}' (passes: ${Object.keys(PASSES).join(', ')})`);
    return 2;
  }
  if (only === undefined || only === 'current') installOrExit();
  const results = [];
  for (const [name, pass] of Object.entries(PASSES)) {
    if (only !== undefined && name !== only) continue;
    results.push([name, pass(extra)]);
  }
  console.log(`test-passes: ${results.map(([n, s]) => `${n} pass ${s === 0 ? 'passed' : 'FAILED'}`).join(', ')}`);
  return results.find(([, s]) => s !== 0)?.[1] ?? 0;
}

process.exitCode = main(process.argv.slice(2));
