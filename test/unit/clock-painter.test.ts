// The clock painter on its own (ui/render/clock-painter.ts): which ticks it draws (the digits, in
// Ink's looks, over Ink's row) and which it hands to React (a wider clock, an age that reads
// differently, no frame to draw on, a clock not where the tree said); the clocks drawn are those
// of the frame on the screen, whichever tree rendered last.
import { describe, expect, it } from 'vitest';
import { ClockPainter, type TreeClocks } from '../../src/ui/render/clock-painter.js';
import { parseLineCells } from '../../src/ui/render/line-cells.js';

const T0 = 1_000_000_000;

function rig(hasFrame = true) {
  let now = T0;
  let tick = (): void => {};
  let changed = 0;
  const screen = {
    hasFrame,
    changed: () => void changed++,
  };
  const painter = new ClockPainter(
    screen,
    {
      subscribe: (fn) => {
        tick = fn;
        return () => undefined;
      },
    },
    () => now,
  );
  return {
    painter,
    screen,
    at: (ms: number) => {
      now = T0 + ms;
      tick();
    },
    changed: () => changed,
  };
}

/** A tree row with a clock at cell 4 (dim, as the tree draws the detail). */
const row = (clock: string) => parseLineCells(`│ ● \x1b[2m${clock} Bash\x1b[22m`, 30);
const clocks = (text: string, from: number, extra: Partial<TreeClocks> = {}): TreeClocks => ({
  now: T0,
  spots: [{ x: 4, y: 1, from, text }],
  loose: [],
  ages: [],
  ...extra,
});

describe('the clock painter', () => {
  it('draws a tick that moves only digits over Ink’s row, in its looks, and keeps the cells while they hold', () => {
    const r = rig();
    const owner = {};
    r.painter.rendered(clocks('1m05s', T0 - 65_000), owner);
    r.painter.computed();
    r.painter.frame();
    const ink = row('1m05s');
    expect(r.painter.rows(() => ink)[1]).toBeUndefined(); // Ink's own text is right
    r.at(1000);
    expect(r.changed()).toBe(1);
    expect(r.painter.getSnapshot()).toBe(0); // no render
    const drawn = r.painter.rows(() => ink)[1]!;
    expect(drawn.chars.slice(4, 9).join('')).toBe('1m06s');
    expect(drawn.looks.slice(4, 9)).toEqual(ink.looks.slice(4, 9));
    expect(drawn.chars.slice(0, 4)).toEqual(ink.chars.slice(0, 4));
    expect(r.painter.rows(() => ink)[1]).toBe(drawn); // the same object: an unchanged row
  });

  it('hands a tick to React when the clock gets wider, an age reads differently, or there is no frame', () => {
    const r = rig();
    const owner = {};
    r.painter.rendered(clocks('59s', T0 - 59_000), owner);
    r.painter.frame();
    r.at(1000); // 59s → 1m00s
    expect(r.painter.getSnapshot()).toBe(1);
    expect(r.changed()).toBe(0);

    const a = rig();
    a.painter.rendered(clocks('1m05s', T0 - 65_000, { ages: [T0 - 59_500] }), owner);
    a.painter.frame();
    a.at(1000); // the age 59s → 1m
    expect(a.painter.getSnapshot()).toBe(1);

    const b = rig(false);
    b.painter.rendered(clocks('1m05s', T0 - 65_000), owner);
    b.painter.frame();
    b.at(1000);
    expect(b.painter.getSnapshot()).toBe(1);
  });

  it('asks for a render when Ink’s row does not show the clock where the tree said', async () => {
    const r = rig();
    r.painter.rendered(clocks('1m05s', T0 - 65_000), {});
    r.painter.computed();
    r.painter.frame();
    r.at(1000);
    expect(r.painter.rows(() => row('9m99s'))[1]).toBeUndefined();
    await new Promise((res) => setImmediate(res));
    expect(r.painter.getSnapshot()).toBe(1);
  });

  it('draws the clocks of the frame on the screen: a render is taken when Ink draws it', () => {
    const r = rig();
    const first = {};
    r.painter.rendered(clocks('1m05s', T0 - 65_000), first);
    r.painter.computed();
    r.painter.frame();
    // The tree moved the row down a line; Ink has not drawn that frame yet.
    const moved = clocks('1m05s', T0 - 65_000);
    r.painter.rendered({ ...moved, spots: [{ ...moved.spots[0]!, y: 2 }] }, first);
    r.painter.computed();
    r.at(1000);
    expect(
      r.painter
        .rows(() => row('1m05s'))[1]!
        .chars.slice(4, 9)
        .join(''),
    ).toBe('1m06s');
    r.painter.frame();
    const rows = r.painter.rows(() => row('1m05s'));
    expect(rows[1]).toBeUndefined();
    expect(rows[2]!.chars.slice(4, 9).join('')).toBe('1m06s');
    // A tree that goes leaves what another (mounted in the same commit) rendered.
    const second = {};
    r.painter.rendered(clocks('1m06s', T0 - 65_000), second);
    r.painter.rendered(null, first);
    r.painter.computed();
    r.painter.frame();
    expect(r.painter.region).not.toBeNull();
    r.painter.rendered(null, second);
    r.painter.computed();
    r.painter.frame();
    expect(r.painter.region).toBeNull();
  });
});
