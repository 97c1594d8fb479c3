// The dashboard's side of a streaming PTY preview, alone and repeatable: what a session wrote
// (saved by `BENCH_SAVE_STREAM=<file> node bench/ui-pty-stream.mjs`) is parsed by the host's screen
// and turned into rows frames (ptyd/grid-feed.ts) up front; then, timed, each frame is decoded,
// applied to the dashboard's grid (pty/remote-grid.ts) and drawn by the preview painter through
// the compositor over a still frame of Ink's, as in `klaude ui`. The process runs the dashboard's
// V8 settings (baseline code only, the young generation kept small: lib/heap.ts). Printed: CPU per frame (µs; user + system, GC
// included) and bytes drawn, best of BENCH_ROUNDS rounds. A figure to compare builds of the
// drawing code with, on a loaded machine: no processes, no timers, no terminal.
//   node bench/ui-preview-replay.mjs <stream.json> [cols=66] [rows=29]
import './_env.mjs';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { register } from 'tsx/esm/api';
import { fmt } from './_ui-support.mjs';

// BENCH_V8_FLAGS: other compiler settings to compare (e.g. '--max-opt=999', V8's own).
setFlagsFromString(process.env.BENCH_V8_FLAGS ?? '--max-opt=1');
setFlagsFromString('--semi-space-growth-factor=1');
register();
const { HeadlessScreen } = await import('../src/ptyd/screen.ts');
const { GridFeed } = await import('../src/ptyd/grid-feed.ts');
const { decodeJson, encodeFrame, FRAME, FrameDecoder } = await import('../src/ptyd/framing.ts');
const { RemoteGrid } = await import('../src/pty/remote-grid.ts');
const { Compositor } = await import('../src/ui/render/compositor.ts');
const { PreviewPainter } = await import('../src/ui/render/preview-painter.ts');

const [file, colsArg, rowsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/ui-preview-replay.mjs <stream.json> [cols] [rows]');
  process.exit(2);
}
const COLS = Number(colsArg ?? 66);
const ROWS = Number(rowsArg ?? 29);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const chunks = JSON.parse(readFileSync(file, 'utf8'));

// The host's side, untimed: one rows frame per chunk of output (as bytes on the socket).
const screen = new HeadlessScreen({ cols: COLS, rows: ROWS, scrollback: 0 });
const frames = [];
const feed = new GridFeed(screen, 0, (rows) => frames.push(encodeFrame(FRAME.rows, rows)), true);
for (const c of chunks) {
  screen.write(c);
  await screen.parsed();
  feed.flush();
}
feed.close();

// A still frame of Ink's around the pane, as bench/ui-pty-stream.mjs has it: a tree of 3 sessions
// on the left, the pane's border on the right (its inside blank: the painter's), keys below.
const WIDTH = 120;
const HEIGHT = 34;
const X = WIDTH - COLS - 1;
const TREE = X - 3;
const lines = Array.from({ length: HEIGHT }, (_, y) => {
  if (y === 0) return `\x1b[1mproject\x1b[22m · 3 sessions`;
  if (y === HEIGHT - 1) return '↓ down  Tab pane  ⏎ open  n new  ? help  q quit';
  const edge = y === 1 ? ['╭', '╮'] : y === HEIGHT - 2 ? ['╰', '╯'] : ['│', '│'];
  const fill = y === 1 || y === HEIGHT - 2 ? '─' : ' ';
  const row =
    y >= 2 && y < 5 ? ` \x1b[32m○\x1b[39m agent-${y - 2} pty · task ${y - 2}`.padEnd(TREE + 9) : fill.repeat(TREE);
  return `${edge[0]}${row}${edge[1]}${edge[0]}${fill.repeat(COLS)}${edge[1]}`;
});

function round() {
  let bytes = 0;
  const grid = new RemoteGrid(COLS, ROWS);
  const compositor = new Compositor(
    (s) => (bytes += Buffer.byteLength(s)),
    () => WIDTH,
  );
  const painter = new PreviewPainter(compositor, () => grid);
  compositor.addOverlay(painter);
  painter.place({ sessionId: 's', x: X, y: 2, width: COLS, height: ROWS, colour: true });
  compositor.frame(lines);
  compositor.flushNow();
  const decoder = new FrameDecoder();
  const t0 = process.cpuUsage();
  for (const f of frames) {
    for (const fr of decoder.push(f)) grid.apply(decodeJson(fr));
    painter.paint();
    compositor.flushNow();
  }
  const t = process.cpuUsage(t0);
  return { us: (t.user + t.system) / frames.length, bytes };
}

const runs = Array.from({ length: ROUNDS }, round);
const best = Math.min(...runs.map((r) => r.us));
console.log(
  `ui preview replay: ${frames.length} rows frames of a ${COLS}×${ROWS} session (${chunks.length} chunks, ${chunks.join('').length} chars): ` +
    `CPU ${fmt(best, 0)} µs a frame (best of ${ROUNDS}; all ${runs.map((r) => fmt(r.us, 0)).join(' ')}), ${runs[0].bytes} bytes drawn`,
);
