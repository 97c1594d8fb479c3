// A re-attach at another width: the render must keep a soft-wrapped line one line, so the
// person's terminal (which re-wraps on its own resize) and the host's screen (which re-wraps on the
// PTY's resize) agree. Real @xterm/headless on both sides.
import { describe, expect, it } from 'vitest';
import { HeadlessScreen } from '../../src/ptyd/screen.js';

const LONG = 'The quick brown fox jumps over the lazy dog and keeps running until the line wraps twice.';

/** The person's terminal: a fresh screen of `cols` that gets the host's render. */
async function attach(host: HeadlessScreen, cols: number, history = 20): Promise<HeadlessScreen> {
  await host.parsed();
  const term = new HeadlessScreen({ cols, rows: host.rows, scrollback: 100 });
  term.write(host.render({ history }));
  await term.parsed();
  return term;
}

async function resizeBoth(a: HeadlessScreen, b: HeadlessScreen, cols: number): Promise<void> {
  a.resize(cols, a.rows);
  b.resize(cols, b.rows);
  await Promise.all([a.parsed(), b.parsed()]);
}

/** Every row of the buffer (scrollback and screen), the blank rows before and after the text dropped. */
function allLines(s: HeadlessScreen): string[] {
  const b = s.term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < b.length; y++) out.push(b.getLine(y)!.translateToString(true));
  while (out.length && out.at(-1) === '') out.pop();
  while (out.length && out[0] === '') out.shift();
  return out;
}

const joined = (lines: string[]): string => lines.join('');

describe('render of soft-wrapped lines', () => {
  it('marks the continuation rows wrapped on the attaching terminal, like the host has them', async () => {
    const host = new HeadlessScreen({ cols: 40, rows: 8 });
    host.write(`$ echo\r\n${LONG}\r\n>`);
    const term = await attach(host, 40);
    expect(term.lines()).toEqual(host.lines());
    const wrapped = (s: HeadlessScreen) =>
      Array.from({ length: s.rows }, (_, y) => s.term.buffer.active.getLine(s.term.buffer.active.baseY + y)!.isWrapped);
    expect(wrapped(term)).toEqual(wrapped(host));
    expect(wrapped(host).filter(Boolean)).toHaveLength(2); // the test is about something: LONG takes three rows
  });

  it.each([
    ['wider', 40, 70],
    ['narrower', 70, 30],
  ])('attached, then both resized %s: the line re-wraps the same on both sides', async (_n, from, to) => {
    const host = new HeadlessScreen({ cols: from, rows: 10 });
    host.write(`first\r\n${LONG}\r\nlast line`);
    const term = await attach(host, from);
    await resizeBoth(host, term, to);
    expect(allLines(term)).toEqual(allLines(host));
    expect(allLines(term)).toContain(LONG.slice(0, to));
  });

  it('re-attaching at another width after the host re-wrapped keeps every line, whole', async () => {
    const host = new HeadlessScreen({ cols: 40, rows: 10 });
    for (let i = 1; i <= 3; i++) host.write(`${i}: ${LONG}\r\n`);
    host.write('>');
    await attach(host, 40); // the first attach
    host.resize(64, 10); // the person comes back on a wider terminal
    const term = await attach(host, 64);
    expect(term.lines()).toEqual(host.lines());
    // Each long line is still one logical line: shrinking the person's terminal re-wraps it whole.
    await resizeBoth(host, term, 25);
    expect(allLines(term).slice(-12)).toEqual(allLines(host).slice(-12));
    expect(joined(allLines(term))).toContain(`3: ${LONG}`);
  });
});
