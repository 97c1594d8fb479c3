// How a run's ending is recorded: the log's `done` line comes before the row says ended, so whoever
// sees the row ended (`klaude wait`, then `klaude logs`) finds the log complete. A real DB file and
// a real session log; the order is observed from inside the writer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { isTerminal } from '../../src/core/status.js';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { nullLogger } from '../../src/lib/logger.js';
import { openSessionLog } from '../../src/logs/writer.js';
import { RunRecord } from '../../src/runtime/run-record.js';
import type { RuntimeAdapter } from '../../src/adapters/runtime-adapter.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const PROJECT = 'c'.repeat(24);
let home: TempHome | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  home?.cleanup();
});

it('writes the done line before the row says the run ended', () => {
  home = makeTempHome({ prefix: 'klaude-ending-' });
  const d = openDb(home.klaudeHome);
  db = d;
  ensureProject(d, { hash: PROJECT, rootPath: home.projectDir });
  const session = createSession(d, { projectId: PROJECT, type: 'coder', status: 'running' });
  const file = join(home.klaudeHome, 'run.ndjson');
  const log = openSessionLog(file);
  /** The row's status at the moment each line was appended. */
  const seen: { type: string; row: string | undefined }[] = [];
  const writer = {
    ...log,
    append: (e: Parameters<typeof log.append>[0]) => {
      seen.push({ type: e.type, row: getSession(d, session.id)?.status });
      return log.append(e);
    },
  };
  const rec = new RunRecord({
    home: home.klaudeHome,
    config: defaultConfig(),
    db: d,
    env: home.env,
    log: nullLogger,
    session,
    meta: { cwd: home.projectDir, projectRoot: home.projectDir, agent: {} } as never,
    adapter: { name: 'claude' } as RuntimeAdapter,
    writer,
  });
  rec.write({ type: 'text', text: 'half an answer' });
  rec.finalize({ type: 'done', status: 'interrupted' });
  log.close();

  expect(seen.map((s) => s.type)).toEqual(['text', 'done']);
  expect(seen.every((s) => s.row !== undefined && !isTerminal(s.row as never))).toBe(true);
  expect(getSession(d, session.id)).toMatchObject({ status: 'interrupted', activity: null });
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; status?: string });
  expect(lines.at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
  // Once only: a second ending neither writes nor changes the row.
  rec.finalize({ type: 'done', status: 'failed', error: 'late' });
  expect(seen).toHaveLength(2);
  expect(getSession(d, session.id)?.status).toBe('interrupted');
});
