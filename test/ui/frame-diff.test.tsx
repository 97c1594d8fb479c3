// Frames from the real Ink drawn as the cells that changed (InkOutput → ui/render/compositor.ts):
// two headless terminals, one fed Ink's chunks as Ink wrote them, the other what the dashboard's
// stdout made of them, must show the same screen (text and colours) after every frame, with fewer
// bytes; a frame where only a clock moved writes about the clock.
import { EventEmitter } from 'node:events';
import { Box, render, Text } from 'ink';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { Compositor } from '../../src/ui/render/compositor.js';
import { frameLines } from '../../src/ui/render/frame-diff.js';
import { InkOutput } from '../../src/ui/render/ink-output.js';

const COLS = 40;
const ROWS = 12;

/** A terminal-ish stream: what is written goes to a headless screen (and is counted). */
class Term extends EventEmitter {
  readonly isTTY = true;
  columns = COLS;
  rows = ROWS;
  bytes = 0;
  readonly screen = new HeadlessScreen({ cols: COLS, rows: ROWS, scrollback: 0 });
  write(chunk: string): boolean {
    this.bytes += Buffer.byteLength(chunk);
    // A PTY's line discipline turns \n into \r\n; the headless screen needs it done here.
    this.screen.write(chunk.replace(/\n/g, '\r\n'));
    return true;
  }
}

const Frame = ({ lines, clock }: { lines: string[]; clock: number }) => (
  <Box flexDirection="column" height={ROWS - 1} borderStyle="round">
    <Text color="green">
      agent-1 · <Text bold>{clock}s</Text> writing
    </Text>
    {lines.map((l, i) => (
      <Text key={i} color={i % 3 === 0 ? 'cyan' : undefined}>
        {l}
      </Text>
    ))}
  </Box>
);

const terms: Term[] = [];
afterEach(() => {
  for (const t of terms.splice(0)) t.screen.dispose();
});

async function settle(ms = 5000, until: () => boolean = () => true): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && !until()) await new Promise((r) => setTimeout(r, 1));
}

describe('frames drawn as the cells that changed', () => {
  it('shows what Ink drew, frame after frame, in fewer bytes; a clock that moved costs about the clock', async () => {
    const plain = new Term();
    const real = new Term();
    terms.push(plain, real);
    const screen = new Compositor(
      (s) => real.write(s),
      () => COLS,
    );
    const out = new InkOutput(real as unknown as NodeJS.WriteStream, () => ({ columns: COLS, rows: ROWS }), screen);
    const written: string[] = [];
    const writes = (): number => screen.writes;
    const draw = screen['write'];
    (screen as unknown as { write: (s: string) => void }).write = (s) => {
      written.push(s);
      draw(s);
    };
    // The same app twice: one to the plain terminal, one through InkOutput.
    const opts = { patchConsole: false, exitOnCtrlC: false, maxFps: 1000 } as const;
    let lines = ['first line', 'second line', 'third'];
    const a = render(<Frame lines={lines} clock={0} />, { ...opts, stdout: plain as unknown as NodeJS.WriteStream });
    const b = render(<Frame lines={lines} clock={0} />, { ...opts, stdout: out as unknown as NodeJS.WriteStream });
    await settle(5000, () => writes() === 1);
    await Promise.all([plain.screen.parsed(), real.screen.parsed()]);
    expect(real.screen.lines({ ansi: true })).toEqual(plain.screen.lines({ ansi: true }));
    const frames: Array<[string[], number]> = [
      [lines, 1], // the clock alone
      [[...lines, 'a fourth line streams in'], 2],
      [['first line', 'second line changed', 'third', 'a fourth line streams in, longer'], 3],
      [['only one'], 3], // shorter: the rest is erased
      [['日本語 wide', 'only one'], 4],
    ];
    for (const [next, clock] of frames) {
      lines = next;
      const before = writes();
      a.rerender(<Frame lines={lines} clock={clock} />);
      b.rerender(<Frame lines={lines} clock={clock} />);
      await settle(5000, () => writes() > before);
      await Promise.all([plain.screen.parsed(), real.screen.parsed()]);
      expect(real.screen.lines({ ansi: true })).toEqual(plain.screen.lines({ ansi: true }));
    }
    // The clock's frame: its digit, on the clock's row (row 2; the border is row 1), then the cursor back below the frame.
    expect(written[1]).toBe('\x1b[?2026h\x1b[2;12H1\x1b[12;1H\x1b[?2026l');
    expect(real.bytes).toBeLessThan(plain.bytes / 3);
    a.unmount();
    b.unmount();
  });

  it('leaves chunks that are not whole frames alone', () => {
    expect(frameLines('\x1b[?25l')).toBeNull();
    expect(frameLines('\x1b[2K\x1b[1A\x1b[2K\x1b[G')).toBeNull(); // Ink clearing its output
    expect(frameLines('\x1b[3Aabc\n')).toBeNull(); // a cursor move inside: not a frame
    expect(frameLines('\x1b[2K\x1b[1A\x1b[2K\x1b[Gx\n\x1b[31my\x1b[39m\n')).toEqual(['x', '\x1b[31my\x1b[39m']);
  });
});
