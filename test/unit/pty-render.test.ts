// Rendering a headless screen back to ANSI: painting the render on a fresh terminal of the same
// size gives the same screen (text, colours, attributes, wide characters, cursor, modes).
import { describe, expect, it } from 'vitest';
import { HeadlessScreen } from '../../src/ptyd/screen.js';

async function replay(src: HeadlessScreen, history = 0): Promise<HeadlessScreen> {
  await src.parsed();
  const dst = new HeadlessScreen({ cols: src.cols, rows: src.rows, scrollback: 100 });
  // A shell's leftovers on the person's terminal: the render must paint over them.
  dst.write('$ leftover prompt text\r\n$ klaude talk x\r\n');
  dst.write(src.render({ history }));
  await dst.parsed();
  return dst;
}

function cursor(s: HeadlessScreen): [number, number] {
  const b = s.term.buffer.active;
  return [b.cursorX, b.cursorY];
}

describe('render', () => {
  it('reproduces text, colours and attributes, wide characters and the cursor', async () => {
    const a = new HeadlessScreen({ cols: 40, rows: 8 });
    a.write('\x1b[1;31mbold red\x1b[0m plain \x1b[38;5;208morange\x1b[0m\r\n');
    a.write(
      '\x1b[38;2;10;20;30;48;2;200;100;50mtrue colour\x1b[0m \x1b[7minverse\x1b[27m \x1b[4;3munder-italic\x1b[0m\r\n',
    );
    a.write('wide: 漢字✓ end\r\n');
    a.write('\x1b[44m   \x1b[0m blue bg cells\r\n');
    a.write('\x1b[6;5Hcursor here');
    const b = await replay(a);
    expect(b.lines({ ansi: true })).toEqual(a.lines({ ansi: true }));
    expect(b.lines()).toEqual(a.lines());
    expect(cursor(b)).toEqual(cursor(a));
    expect(a.lines()[2]).toBe('wide: 漢字✓ end');
  });

  it('puts history above the screen and the screen exactly in the viewport', async () => {
    const a = new HeadlessScreen({ cols: 30, rows: 6 });
    for (let i = 1; i <= 20; i++) a.write(`line ${i}\r\n`);
    a.write('> typing');
    const b = await replay(a, 5);
    expect(b.lines()).toEqual(a.lines());
    expect(b.lines().at(-1)).toBe('> typing');
    expect(cursor(b)).toEqual(cursor(a));
    const bb = b.term.buffer.active;
    const above = [];
    for (let y = bb.baseY - 5; y < bb.baseY; y++) above.push(bb.getLine(y)!.translateToString(true));
    expect(above).toEqual(['line 11', 'line 12', 'line 13', 'line 14', 'line 15']);
  });

  it('replays the alternate screen, hidden cursor and input modes', async () => {
    const a = new HeadlessScreen({ cols: 30, rows: 5 });
    a.write('normal text\r\n\x1b[?1049h\x1b[?25l\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[2;3Hfull screen');
    const b = await replay(a);
    expect(b.term.buffer.active.type).toBe('alternate');
    expect(b.lines()).toEqual(a.lines());
    expect(b.term.modes).toEqual(a.term.modes);
    const render = a.render();
    expect(render).toContain('\x1b[?25l');
    expect(render).toContain('\x1b[?1006h');
  });

  it('answers terminal queries only when asked to', async () => {
    const a = new HeadlessScreen({ cols: 30, rows: 5 });
    const replies: string[] = [];
    a.write('\x1b[6n');
    await a.parsed();
    expect(replies).toEqual([]);
    a.answerQueries((d) => replies.push(d));
    a.write('ab\x1b[6n');
    await a.parsed();
    expect(replies).toEqual(['\x1b[1;3R']);
  });
});
