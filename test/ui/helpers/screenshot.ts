// Real screenshots of the dashboard for the README: the built `klaude ui` runs in a seeded demo
// home under the PTY driver; the headless terminal's cells (character, colours, attributes) are
// dumped as JSON and drawn to PNG by cells-to-png.py (Pillow, DejaVu Sans Mono).
//   npm run build && node --import tsx test/ui/helpers/screenshot.ts [outDir=assets]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import xterm from '@xterm/headless';
import { appendEvents } from './demo-data.js';
import { startMockAnthropic } from '../../support/mock-anthropic.js';
import type { PtySession } from '../../support/pty-driver.js';
import { startUi, uiHome } from './ui-e2e.js';

type Term = InstanceType<typeof xterm.Terminal>;
const outDir = path.resolve(process.argv[2] ?? 'assets');
const here = path.dirname(new URL(import.meta.url).pathname);

interface Cell {
  c: string;
  w: number;
  fg: number | string | null;
  bg: number | string | null;
  b?: 1;
  d?: 1;
  i?: 1;
  v?: 1;
}

function color(
  mode: 'fg' | 'bg',
  cell: ReturnType<NonNullable<ReturnType<Term['buffer']['active']['getLine']>>['getCell']>,
): number | string | null {
  if (!cell) return null;
  const isDefault = mode === 'fg' ? cell.isFgDefault() : cell.isBgDefault();
  if (isDefault) return null;
  const v = mode === 'fg' ? cell.getFgColor() : cell.getBgColor();
  const rgb = mode === 'fg' ? cell.isFgRGB() : cell.isBgRGB();
  return rgb ? `#${v.toString(16).padStart(6, '0')}` : v;
}

/** The visible screen as cells. Needs the terminal object: the driver keeps it private, so we tap its output. */
function dump(term: Term): Cell[][] {
  const buf = term.buffer.active;
  const rows: Cell[][] = [];
  for (let y = buf.viewportY; y < buf.viewportY + term.rows; y++) {
    const line = buf.getLine(y);
    const row: Cell[] = [];
    for (let x = 0; x < term.cols; x++) {
      const cell = line?.getCell(x);
      if (!cell || cell.getWidth() === 0) continue;
      const out: Cell = { c: cell.getChars() || ' ', w: cell.getWidth(), fg: color('fg', cell), bg: color('bg', cell) };
      if (cell.isBold()) out.b = 1;
      if (cell.isDim()) out.d = 1;
      if (cell.isItalic()) out.i = 1;
      if (cell.isInverse()) out.v = 1;
      row.push(out);
    }
    rows.push(row);
  }
  return rows;
}

/** A mirror terminal fed with the same bytes as the driver's (so cell attributes can be read). */
function mirror(session: PtySession, cols: number, rows: number): { term: Term; sync(): Promise<void> } {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, logLevel: 'off' });
  let fed = 0;
  return {
    term,
    sync: () =>
      new Promise<void>((resolve) => {
        const raw = session.rawOutput();
        const chunk = raw.slice(fed);
        fed = raw.length;
        term.write(chunk, () => resolve());
      }),
  };
}

async function shoot(session: PtySession, m: ReturnType<typeof mirror>, name: string): Promise<void> {
  await session.flush();
  await m.sync();
  const json = path.join(outDir, `${name}.json`);
  writeFileSync(json, JSON.stringify({ cols: m.term.cols, rows: m.term.rows, cells: dump(m.term) }));
  execFileSync('/usr/bin/python3', [path.join(here, 'cells-to-png.py'), json, path.join(outDir, `${name}.png`)], {
    stdio: 'inherit',
  });
  execFileSync('rm', ['-f', json]);
  console.log(`wrote ${path.join(outDir, `${name}.png`)}`);
}

const mock = await startMockAnthropic();
const demo = uiHome(mock);
const cols = 132;
const rows = 34;
const term = startUi(demo, { cols, rows });
try {
  const m = mirror(term, cols, rows);
  await term.waitForText('? help', { timeoutMs: 20_000 });
  for (let i = 0; i < 3; i++) term.press('down');
  await term.waitForText('fix proposal now');
  appendEvents(demo.sessions.rev!.logPath, [
    { type: 'tool_call', id: 'w', name: 'Edit', summary: 'src/auth/refresh.ts' },
    { type: 'tool_result', id: 'w', isError: false, output: 'Updated src/auth/refresh.ts (12 lines)' },
    {
      type: 'text',
      text: 'Refresh now awaits the pending login write before reading the session.\n[UPDATE] fix ready for review: refresh waits for the login write',
    },
    { type: 'update', text: 'fix ready for review: refresh waits for the login write' },
  ]);
  await term.waitForText('fix ready for review');
  await shoot(term, m, 'dashboard');

  term.write('?');
  await term.waitForText('Esc closes');
  await shoot(term, m, 'dashboard-help');
  term.press('escape');
  await term.waitForGone('Esc closes');

  term.write('s');
  await term.waitForText('plain Claude Code agent');
  await shoot(term, m, 'dashboard-start');
  term.press('escape');
  await term.waitForGone('start an agent');

  term.resize(78, 24);
  m.term.resize(78, 24);
  term.press('tab');
  await term.waitFor((t) => /╭─ log · reviewer/.test(t) && !/╭─ sessions/.test(t), 'the narrow log pane');
  await shoot(term, m, 'dashboard-narrow');
} finally {
  await term.dispose();
  await mock.close();
  demo.home.cleanup();
}
