// Claude Code's current release, for the second pass of `npm test` (docs/claude-versions.md).
// The pinned version is the devDependency in package.json; the current one is
// package.json's `config.claudeCurrent`. This installs it from the npm registry into
// .cache/claude-current (gitignored; never into node_modules, which the devDependency owns),
// then runs vitest: `current` runs the suites that drive the real claude against it
// (KLAUDE_TEST_CLAUDE=current, read by test/support/claude-bin.ts). `npm test` runs it as the last
// of its passes (scripts/test-passes.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(root, '.cache', 'claude-current');
const pkgDir = join(prefix, 'node_modules', '@anthropic-ai', 'claude-code');

/** The suites that run the real claude (interactive or headless) — the ones a new release can break. */
export const CURRENT_SUITES = [
  'test/e2e',
  'test/integration/agents-claude.test.ts',
  'test/integration/death-notice.test.ts',
  'test/integration/harness-print.test.ts',
  'test/integration/mcp-approval.test.ts',
  'test/integration/queue-launch-env.test.ts',
  'test/integration/run-queue.test.ts',
  'test/integration/run-recovery.test.ts',
  'test/integration/runtime-claude.test.ts',
  'test/integration/runtime-handlers.test.ts',
];

export function wantedVersion() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const v = pkg.config?.claudeCurrent;
  if (typeof v !== 'string' || !/^\d+\.\d+\.\d+$/.test(v)) {
    throw new Error('package.json has no config.claudeCurrent (an exact Claude Code version, e.g. "2.1.332")');
  }
  return v;
}

function installedVersion() {
  try {
    return JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

export function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function install() {
  const version = wantedVersion();
  const bin = join(pkgDir, 'bin', 'claude.exe');
  if (installedVersion() === version && existsSync(bin)) return;
  console.log(`claude-current: installing @anthropic-ai/claude-code@${version} into .cache/claude-current`);
  const status = run('npm', [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
    `@anthropic-ai/claude-code@${version}`,
  ]);
  if (status !== 0 || installedVersion() !== version || !existsSync(bin)) {
    throw new Error(`could not install @anthropic-ai/claude-code@${version} (npm exit ${status})`);
  }
}

export function vitest(args, env) {
  return run(join(root, 'node_modules', '.bin', 'vitest'), ['run', ...args], { ...process.env, ...env });
}

export function testCurrent(args) {
  console.log(
    `claude-current: ${CURRENT_SUITES.join(' ')} against claude ${wantedVersion()} (KLAUDE_TEST_CLAUDE=current)`,
  );
  return vitest([...CURRENT_SUITES, ...args], { KLAUDE_TEST_CLAUDE: 'current' });
}

/** Install, with one line and a hint instead of a stack (the usual cause: no route to the npm registry). */
export function installOrExit() {
  try {
    install();
  } catch (err) {
    console.error(`claude-current: ${err instanceof Error ? err.message : String(err)}`);
    console.error(
      'claude-current: hint: it comes from the npm registry (npm config get registry); see docs/claude-versions.md',
    );
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command = 'install', ...rest] = process.argv.slice(2);
  installOrExit();
  if (command === 'current') {
    process.exitCode = testCurrent(rest);
  } else if (command !== 'install') {
    console.error('usage: node scripts/claude-current.mjs [install | current [vitest args…]]');
    process.exitCode = 2;
  }
}
