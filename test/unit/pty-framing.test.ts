// The PTY host's frames: encode/decode round trip under any chunking, JSON bodies, the size bound.
import { describe, expect, it } from 'vitest';
import { decodeJson, encodeFrame, FRAME, FrameDecoder, MAX_FRAME_BYTES, validSize } from '../../src/ptyd/framing.js';

describe('PTY framing', () => {
  const frames = [
    encodeFrame(FRAME.hello, { v: 1, mode: 'control', cols: 80, rows: 24 }),
    encodeFrame(FRAME.input, Buffer.from('héllo\x1d')),
    encodeFrame(FRAME.detach),
    encodeFrame(FRAME.output, Buffer.alloc(70_000, 0x41)),
    encodeFrame(FRAME.screen, '\x1b[0mscreen'),
  ];
  const stream = Buffer.concat(frames);

  it.each([1, 2, 3, 5, 7, 4096, stream.length])('decodes frames split into %i-byte reads', (size) => {
    const d = new FrameDecoder();
    const got = [];
    for (let i = 0; i < stream.length; i += size) got.push(...d.push(stream.subarray(i, i + size)));
    expect(got.map((f) => f.type)).toEqual([FRAME.hello, FRAME.input, FRAME.detach, FRAME.output, FRAME.screen]);
    expect(decodeJson(got[0]!)).toEqual({ v: 1, mode: 'control', cols: 80, rows: 24 });
    expect(got[1]!.payload.toString('utf8')).toBe('héllo\x1d');
    expect(got[2]!.payload.length).toBe(0);
    expect(got[3]!.payload.length).toBe(70_000);
    expect(got[4]!.payload.toString()).toBe('\x1b[0mscreen');
    expect(d.pending).toBe(0);
  });

  it('rejects a frame over the bound', () => {
    const head = Buffer.alloc(5);
    head.writeUInt8(FRAME.output, 0);
    head.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(() => new FrameDecoder().push(head)).toThrow(/too large/);
  });

  it('names a malformed JSON body', () => {
    expect(() => decodeJson({ type: FRAME.hello, payload: Buffer.from('{nope') })).toThrow(/malformed/);
  });

  it('accepts only sane terminal sizes', () => {
    expect(validSize({ cols: 80, rows: 24 })).toEqual({ cols: 80, rows: 24 });
    expect(validSize({ cols: 0, rows: 24 })).toBeNull();
    expect(validSize({ cols: 80.5, rows: 24 })).toBeNull();
    expect(validSize({ cols: 80 })).toBeNull();
    expect(validSize(undefined)).toBeNull();
  });
});
