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
// Extra arguments go to vitest in every pass. `--pass <name>` runs one pass only. Each vitest run
// also writes a JSON report, and the last lines printed name every failed test of every pass with
// the first line of its error, so the end of a long log says what failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
  'test/integration/session-strays.test.ts',
  'test/integration/watchdog-shell.test.ts',
  'test/unit/process-identity.test.ts',
];

const LAZY_MODES = [
  { name: 'lazy init (reaps every 3 s)', args: ['--reap-every', '3'] },
  { name: 'lazy init (never reaps)', args: ['--never'] },
];

const reportDir = mkdtempSync(join(tmpdir(), 'klaude-test-passes-'));
const reports = [];

/** vitest arguments that add a JSON report for one run, remembered for the summary. */
function reportArgs(label) {
  const file = join(reportDir, `${reports.length}.json`);
  reports.push({ label, file });
  return ['--reporter=default', '--reporter=json', `--outputFile.json=${file}`];
}

/** One line per failed test of every run, with the first line of its error. */
function failureLines() {
  const lines = [];
  for (const { label, file } of reports) {
    let report;
    try {
      report = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    for (const suite of report.testResults ?? []) {
      const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      const where = suite.name.startsWith(root) ? suite.name.slice(root.length + 1) : suite.name;
      if (failed.length === 0 && suite.status === 'failed') {
        lines.push(`${label}: ${where}: ${firstLine(suite.message)}`);
      }
      for (const t of failed) lines.push(`${label}: ${where} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    }
  }
  return lines;
}

function firstLine(text) {
  return (
    String(text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '') ?? ''
  );
}

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
      ...reportArgs(mode.name),
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
    return vitest([...reportArgs('pinned'), ...extra], { KLAUDE_TEST_CLAUDE: 'pinned' });
  },
  lazy: (extra) => {
    let worst = 0;
    for (const mode of LAZY_MODES) {
      const status = lazyInitPass(mode, extra);
      if (worst === 0) worst = status;
    }
    return worst;
  },
  current: (extra) => testCurrent([...reportArgs('current'), ...extra]),
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
  for (const line of failureLines()) console.log(`test-passes: failed: ${line}`);
  rmSync(reportDir, { recursive: true, force: true });
  console.log(`test-passes: ${results.map(([n, s]) => `${n} pass ${s === 0 ? 'passed' : 'FAILED'}`).join(', ')}`);
  return results.find(([, s]) => s !== 0)?.[1] ?? 0;
}

process.exitCode = main(process.argv.slice(2));
