// klaude on a broken SQLite module, as a Node upgrade (an addon built for another
// NODE_MODULE_VERSION) or an interrupted install (a native file cut short, or missing) leaves it:
// a real copy of the install whose better_sqlite3.node is broken (test/support/broken-install.ts).
// `klaude doctor` names the module and the fix (`npm rebuild better-sqlite3` in that install) and
// still runs and reports its other checks, never advising to move the (healthy) database aside;
// any other command fails with one line, the same code and hint; the database is left as it was.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { brokenInstall, OTHER_ABI, type Breakage, type BrokenInstall } from '../support/broken-install.js';
import { runKlaude } from '../support/klaude-bin.js';
import { runProcess } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome;
let install: BrokenInstall;
let dbBefore: Buffer;

beforeAll(async () => {
  home = makeTempHome({ prefix: 'klaude-sqlite-module-' });
  chmodSync(home.klaudeHome, 0o700);
  writeFileSync(join(home.klaudeHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\n`);
  // A healthy database, made by the healthy klaude.
  expect((await runKlaude(['sessions'], { env: home.env, cwd: home.projectDir })).code).toBe(0);
  dbBefore = readFileSync(join(home.klaudeHome, 'sessions.db'));
  install = brokenInstall(home.root);
});
afterAll(() => home.cleanup());

const broken = (args: string[]) =>
  runProcess(process.execPath, [install.cli, ...args], { env: home.env, cwd: home.projectDir, timeoutMs: 60_000 });

const abi = process.versions.modules;
const WHY: Record<Breakage, RegExp> = {
  'other-abi': new RegExp(
    `built for another Node \\(NODE_MODULE_VERSION ${OTHER_ABI}; this one needs ${abi}\\): .*better_sqlite3\\.node`,
  ),
  truncated: /its native file is cut short \(.*better_sqlite3\.node: 200 of \d+ bytes\)/,
  garbage: /its native file is damaged \(.*better_sqlite3\.node: invalid ELF header\)/,
  'cut-short': /its native file is cut short \(.*better_sqlite3\.node: \d+ of \d+ bytes\)/,
  missing: /its native file is missing \(.*better_sqlite3\.node\)/,
};

describe('a broken SQLite module', () => {
  for (const how of ['other-abi', 'truncated', 'cut-short', 'garbage', 'missing'] as const) {
    it(`${how}: doctor names it and the fix and runs its other checks; commands fail in one line`, async () => {
      install.breakAs(how);
      const fix = `cd ${install.dir} && npm rebuild better-sqlite3`;

      const doc = await broken(['doctor']);
      expect(doc.code).toBe(1);
      const lines = doc.stdout.split('\n');
      const sqlite = lines.find((l) => l.startsWith('✗ sqlite module'));
      expect(sqlite, doc.stdout + doc.stderr).toMatch(/better-sqlite3 .* does not load in Node v\d+\.\d+\.\d+: /);
      expect(sqlite).toMatch(WHY[how]);
      expect(lines[lines.indexOf(sqlite!) + 1]).toMatch(
        new RegExp(`^ +fix: ${fix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
      );
      // The other checks still ran and said what they found.
      for (const check of ['node', 'config', 'claude', 'home', 'run directory', 'pty server', 'watchdogs'])
        expect(doc.stdout).toMatch(new RegExp(`^✔ ${check} `, 'm'));
      for (const check of ['hooks', 'database', 'leftover processes'])
        expect(doc.stdout).toMatch(new RegExp(`^! ${check} +not checked: .*SQLite module does not load`, 'm'));
      // The database is fine: nothing says to move it aside.
      expect(doc.stdout).not.toMatch(/move it aside|mv .*sessions\.db/);
      expect(doc.stderr).toBe('');

      const json = JSON.parse((await broken(['doctor', '--json'])).stdout) as { check: string; fix: string | null }[];
      expect(json.find((c) => c.check === 'sqlite module')?.fix).toBe(fix);

      for (const cmd of [['sessions'], ['start', 'general', 'hello']]) {
        const r = await broken(cmd);
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(/^klaude: better-sqlite3, klaude's SQLite module, does not load in Node v[\d.]+: /);
        expect(r.stderr).toMatch(WHY[how]);
        expect(r.stderr).toContain(`[E_SQLITE_MODULE] — hint: rebuild it for this Node: ${fix}\n`);
      }
      expect(readFileSync(join(home.klaudeHome, 'sessions.db')).equals(dbBefore)).toBe(true);
    });
  }

  it('the healthy install: doctor says the module loads', async () => {
    const r = await runKlaude(['doctor', '--json'], { env: home.env, cwd: home.projectDir, timeoutMs: 60_000 });
    const line = (JSON.parse(r.stdout) as { check: string; ok: boolean; detail: string }[]).find(
      (c) => c.check === 'sqlite module',
    );
    expect(line).toMatchObject({ ok: true });
    expect(line?.detail).toMatch(
      new RegExp(`^better-sqlite3 \\d+\\.\\d+\\.\\d+ loads \\(NODE_MODULE_VERSION ${abi}\\)$`),
    );
  });
});
