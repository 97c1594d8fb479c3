// readTail with lines much longer than its read size: the same events as reading the whole file,
// whatever the chunk size, a torn last line left out, and each byte read once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFormatter } from '../../src/logs/format.js';
import { readAllEvents, readTail } from '../../src/logs/reader.js';

const dir = mkdtempSync(join(tmpdir(), 'klaude-tail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (i: number, len: number): string =>
  JSON.stringify({ ts: i, type: 'text', text: `${i}:${'x'.repeat(len)}é` });

describe('readTail on long lines', () => {
  it('matches a whole read for every chunk size, with a torn tail', async () => {
    const lens = [10, 5000, 3, 70_000, 1, 1, 200_000, 20];
    const file = join(dir, 'a.ndjson');
    writeFileSync(
      file,
      `${lens.map((l, i) => line(i, l)).join('\n')}\n{"ts":99,"type":"text","text":"torn ${'y'.repeat(9000)}`,
    );
    const all = await readAllEvents(file);
    expect(all).toHaveLength(lens.length);
    for (const chunkSize of [1024, 4096, 65_536, 1 << 20]) {
      for (const n of [0, 1, 2, 3, 5, 8, 20]) {
        const t = await readTail(file, n, { chunkSize });
        expect(t.events, `n=${n} chunk=${chunkSize}`).toEqual(all.slice(Math.max(0, all.length - n)));
        expect(t.offset).toBe(Buffer.byteLength(`${lens.map((l, i) => line(i, l)).join('\n')}\n`));
        if (n > 0) expect(t.ends.at(-1)).toBe(t.offset);
      }
    }
  });

  it('reads each byte of a long last line at most twice (a scan for its start, then the line in one read)', async () => {
    const file = join(dir, 'b.ndjson');
    writeFileSync(file, `${line(0, 10)}\n${line(1, 3_000_000)}\n`);
    const t = await readTail(file, 1, { chunkSize: 1024 });
    expect(t.events).toHaveLength(1);
    expect(t.bytesRead).toBeLessThanOrEqual(2 * t.size);
    expect(t.bytesRead).toBeGreaterThan(t.size); // the line was read again whole, not kept in pieces
    expect((t.events[0] as { text: string }).text).toBe(`1:${'x'.repeat(3_000_000)}é`); // the multi-byte end intact
  });

  it('a long line vouched safe as written prints as is; one with an escape or a C1 anywhere is still made safe', async () => {
    const body = 'y'.repeat(100_000);
    const texts = [
      `plain ${body}\n\tdone é`,
      `${body} colour \x1b[31mred\x1b[0m and a title \x1b]0;owned\x07 end`,
      `${body} C1 CSI \x9b2J end`,
      `${body} CR\rover`,
    ];
    const file = join(dir, 'c.ndjson');
    writeFileSync(file, `${texts.map((text, i) => JSON.stringify({ ts: i, type: 'text', text })).join('\n')}\n`);
    const t = await readTail(file, texts.length, { chunkSize: 4096 });
    const out = t.events.map((e) => createFormatter().format(e));
    expect(out[0]).toBe(texts[0]);
    expect(out[1]).toBe(`${body} colour red and a title  end`);
    expect(out[2]).toBe(`${body} C1 CSI  end`);
    expect(out[3]).toBe(`${body} CR\nover`);
  });
});
