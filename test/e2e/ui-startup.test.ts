// The dashboard's first frame costs no Intl.Segmenter (the first one a process makes costs
// 12-20 ms of ICU set-up): the libraries that use one make it on first use (scripts/build.mjs),
// and the first frame's lines take the plain path (ui/render/plain-line.ts, frame-output.ts).
// Text that needs one still measures right once it shows up. The built CLI under a PTY.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { createSession } from '../../src/db/repos/sessions.js';
import { seedProject } from '../support/seed-sessions.js';
import { startUi } from '../ui/helpers/ui-e2e.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const PRELOAD = join(import.meta.dirname, '../fixtures/preload/count-segmenters.cjs');
// No stand-in and no config.yaml: the dashboard starts no claude here.
const fx = useAgentHomes({ standIn: false });
let home: AgentHome;

beforeAll(() => {
  // (CI unset: Ink must run interactive in the PTY even when the runner says CI.)
  home = fx.home({ prefix: 'klaude-ui-startup-', config: false, env: { CI: undefined } });
});

it('paints the first frame without making an Intl.Segmenter; wide text later still lines up', async () => {
  const { db, hash } = seedProject(home);
  try {
    for (let i = 0; i < 10; i++)
      createSession(db, { projectId: hash, type: 'general', status: 'done', prompt: `plain task ${i}` });
  } finally {
    db.close();
  }
  const log = join(home.root, 'segmenters.log');
  const term = home.own(
    startUi(
      { home },
      { cols: 120, rows: 34 },
      { NODE_OPTIONS: `--require ${PRELOAD}`, KLAUDE_TEST_SEGMENTER_LOG: log },
    ),
  );
  await term.waitForText('? help', { timeoutMs: 30_000 });
  await term.waitForText('plain task 9');
  expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');

  // A row with wide characters: measured by string-width, whose segmenter is made now.
  const again = seedProject(home);
  try {
    createSession(again.db, { projectId: again.hash, type: 'general', status: 'done', prompt: '日本語のタスク' });
  } finally {
    again.db.close();
  }
  await term.waitForText('日本語のタスク', { timeoutMs: 20_000 });
  expect(readFileSync(log, 'utf8')).not.toBe('');
  // The tree's right border stays in its column on the wide row: each of its characters counted as two cells.
  const borderCell = (line: string): number => {
    let cell = 0;
    let seen = 0;
    for (const c of line) {
      if (c === '│' && ++seen === 2) return cell;
      cell += /[\u3000-\u9fff]/.test(c) ? 2 : 1;
    }
    return -1;
  };
  const lines = term.lines();
  const wide = lines.find((l) => l.includes('日本語のタスク'))!;
  const plain = lines.find((l) => l.includes('plain task 9'))!;
  expect(borderCell(wide)).toBe(borderCell(plain));
  expect(borderCell(plain)).toBeGreaterThan(0);
});
