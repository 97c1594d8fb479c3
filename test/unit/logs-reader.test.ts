import { appendFileSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NdjsonDecoder, parseEventLine, readAll, readAllEvents, readTail } from '../../src/logs/reader.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'klaude-reader-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const ev = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'text', ts: 1000 + i, text: `line ${i}`, ...extra });

describe('parseEventLine', () => {
  it.each([
    ['{"type":"text","ts":1,"text":"hi"}', 'text'],
    ['  {"type":"done","ts":1,"status":"done"}  ', 'done'],
    ['{"type":"some_future_event","ts":1}', 'some_future_event'],
    ['', null],
    ['   ', null],
    ['not json', null],
    ['{"type":"text","ts":1,"te', null],
    ['[1,2]', null],
    ['{"ts":1}', null],
    ['{"type":3}', null],
    ['"text"', null],
  ])('%j → %s', (line, type) => {
    expect(parseEventLine(line)?.type ?? null).toBe(type);
  });
});

describe('NdjsonDecoder', () => {
  it('holds a torn line until its newline arrives, with byte offsets', () => {
    const d = new NdjsonDecoder(0);
    const a = `${ev(1)}\n`;
    const b = ev(2);
    expect(d.push(Buffer.from(a + b.slice(0, 10))).map((l) => l.event.ts)).toEqual([1001]);
    expect(d.pending).toBe(10);
    expect(d.position).toBe(Buffer.byteLength(a));
    expect(d.push(Buffer.from(b.slice(10, 20)))).toEqual([]);
    const out = d.push(Buffer.from(`${b.slice(20)}\n`));
    expect(out).toHaveLength(1);
    expect(out[0]!.line).toBe(b);
    expect(out[0]!.start).toBe(Buffer.byteLength(a));
    expect(out[0]!.end).toBe(Buffer.byteLength(a + b) + 1);
    expect(d.pending).toBe(0);
  });

  it('decodes a multi-byte character split across chunks', () => {
    const line = `${JSON.stringify({ type: 'text', ts: 1, text: 'héllo → 世界 🎉' })}\n`;
    const bytes = Buffer.from(line);
    const cut = bytes.indexOf(Buffer.from('世')) + 1; // inside the 3-byte sequence
    const d = new NdjsonDecoder();
    expect(d.push(bytes.subarray(0, cut))).toEqual([]);
    const [l] = d.push(bytes.subarray(cut));
    expect((l!.event as { text: string }).text).toBe('héllo → 世界 🎉');
  });

  it('skips bad lines and blank lines, counts the bad ones, accepts CRLF', () => {
    const d = new NdjsonDecoder();
    const out = d.push(Buffer.from(`${ev(1)}\r\nnot json\n\n{"type":\n${ev(2)}\n`));
    expect(out.map((l) => l.event.ts)).toEqual([1001, 1002]);
    expect(out[0]!.line).toBe(ev(1));
    expect(d.skipped).toBe(2);
  });

  it('reset drops held bytes and moves the position', () => {
    const d = new NdjsonDecoder();
    d.push(Buffer.from('{"type":"te'));
    d.reset(42);
    expect(d.pending).toBe(0);
    expect(d.push(Buffer.from(`${ev(3)}\n`))[0]!.start).toBe(42);
  });
});

describe('readTail', () => {
  it('returns the last n events oldest first and the offset after the last complete line', async () => {
    const f = path.join(dir, 'a.ndjson');
    const body = `${[1, 2, 3, 4, 5].map((i) => ev(i)).join('\n')}\n`;
    writeFileSync(f, `${body}{"type":"text","ts":9`); // torn last line
    const t = await readTail(f, 3);
    expect(t.events.map((e) => e.ts)).toEqual([1003, 1004, 1005]);
    expect(t.lines).toEqual([ev(3), ev(4), ev(5)]);
    expect(t.offset).toBe(Buffer.byteLength(body));
    const endOf = (i: number) =>
      Buffer.byteLength(
        [1, 2, 3, 4, 5]
          .slice(0, i)
          .map((k) => `${ev(k)}\n`)
          .join(''),
      );
    expect(t.ends).toEqual([endOf(3), endOf(4), endOf(5)]);
    expect(t.missing).toBe(false);
  });

  it('counts only valid events, reading further back past bad lines', async () => {
    const f = path.join(dir, 'b.ndjson');
    writeFileSync(f, `${ev(1)}\n${ev(2)}\ngarbage\n{"broken\n\n${ev(3)}\n`);
    expect((await readTail(f, 3)).events.map((e) => e.ts)).toEqual([1001, 1002, 1003]);
  });

  it('handles lines longer than a chunk, and n beyond the file', async () => {
    const f = path.join(dir, 'c.ndjson');
    const long = ev(2, { text: 'x'.repeat(5000) });
    writeFileSync(f, `${ev(1)}\n${long}\n${ev(3)}\n`);
    const t = await readTail(f, 10, { chunkSize: 1024 });
    expect(t.events.map((e) => e.ts)).toEqual([1001, 1002, 1003]);
    expect(t.lines[1]).toBe(long);
    const two = await readTail(f, 2, { chunkSize: 1024 });
    expect(two.lines).toEqual([long, ev(3)]);
  });

  it('n = 0 gives no events but the resume offset', async () => {
    const f = path.join(dir, 'd.ndjson');
    writeFileSync(f, `${ev(1)}\n${ev(2)}\n{"partial`);
    const t = await readTail(f, 0);
    expect(t.events).toEqual([]);
    expect(t.offset).toBe(Buffer.byteLength(`${ev(1)}\n${ev(2)}\n`));
  });

  it('a missing file, an empty file and a file without any newline are empty', async () => {
    expect(await readTail(path.join(dir, 'nope.ndjson'), 5)).toMatchObject({ events: [], offset: 0, missing: true });
    writeFileSync(path.join(dir, 'empty.ndjson'), '');
    expect(await readTail(path.join(dir, 'empty.ndjson'), 5)).toMatchObject({ events: [], offset: 0, missing: false });
    writeFileSync(path.join(dir, 'torn.ndjson'), ev(1));
    expect(await readTail(path.join(dir, 'torn.ndjson'), 5)).toMatchObject({ events: [], offset: 0 });
  });

  it('reads only the end of a 50 MB log', async () => {
    const f = path.join(dir, 'big.ndjson');
    const line = `${ev(0, { text: 'y'.repeat(200) })}\n`;
    const block = line.repeat(4096); // ≈ 0.9 MB
    const fd = openSync(f, 'w');
    let size = 0;
    while (size < 50 * 1024 * 1024) size += writeSync(fd, block);
    closeSync(fd);
    appendFileSync(f, `${ev(1)}\n${ev(2)}\n${ev(3)}\n`);
    const t = await readTail(f, 3);
    expect(t.events.map((e) => e.ts)).toEqual([1001, 1002, 1003]);
    expect(t.size).toBeGreaterThan(50 * 1024 * 1024);
    expect(t.bytesRead).toBeLessThanOrEqual(64 * 1024);
    const more = await readTail(f, 100);
    expect(more.events).toHaveLength(100);
    expect(more.bytesRead).toBeLessThan(100 * line.length + 64 * 1024);
  });
});

describe('readAll', () => {
  it('streams complete events with offsets, skipping bad lines and the torn tail', async () => {
    const f = path.join(dir, 'all.ndjson');
    writeFileSync(f, `${ev(1)}\nbad\n${ev(2)}\n{"type":"te`);
    const lines = [];
    for await (const l of readAll(f)) lines.push(l);
    expect(lines.map((l) => l.event.ts)).toEqual([1001, 1002]);
    expect(lines[1]!.end).toBe(Buffer.byteLength(`${ev(1)}\nbad\n${ev(2)}\n`));
    expect((await readAllEvents(f)).length).toBe(2);
  });

  it('starts at an offset, and yields nothing for a missing file', async () => {
    const f = path.join(dir, 'off.ndjson');
    writeFileSync(f, `${ev(1)}\n${ev(2)}\n`);
    const from = Buffer.byteLength(`${ev(1)}\n`);
    const got = [];
    for await (const l of readAll(f, { start: from })) got.push(l.event.ts);
    expect(got).toEqual([1002]);
    expect(await readAllEvents(path.join(dir, 'missing.ndjson'))).toEqual([]);
  });
});
