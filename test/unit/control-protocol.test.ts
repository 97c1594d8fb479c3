import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../src/lib/line-decoder.js';
import { topicOf } from '../../src/control/protocol.js';
import { checkRequest, isEventFrame, isResponseFrame, parseRequestLine } from '../../src/control/frame-check.js';

describe('checkRequest', () => {
  const ok = (action: string, payload?: unknown) => ({
    v: 1,
    id: 'r1',
    action,
    ...(payload === undefined ? {} : { payload }),
  });
  it.each([
    ['ping without payload', ok('ping'), true],
    ['ping with null payload', ok('ping', null), true],
    ['status with extra keys', ok('status', { extra: 1 }), true],
    ['start minimal', ok('start', { type: 'general', prompt: '' }), true],
    [
      'start full',
      ok('start', {
        type: 'g',
        prompt: 'p',
        parentId: 'x',
        count: 2,
        runtime: 'codex',
        model: 'm',
        share: true,
        checkout: false,
      }),
      true,
    ],
    ['start without type', ok('start', { prompt: 'p' }), false],
    ['start count 0', ok('start', { type: 'g', prompt: 'p', count: 0 }), false],
    ['start count 1.5', ok('start', { type: 'g', prompt: 'p', count: 1.5 }), false],
    ['start share as string', ok('start', { type: 'g', prompt: 'p', share: 'yes' }), false],
    ['checkout empty', ok('checkout', {}), true],
    ['checkout bad target', ok('checkout', { target: 5 }), false],
    ['checkout negative timeout', ok('checkout', { timeoutMs: -1 }), false],
    ['message ok', ok('message', { sessionId: 's', prompt: 'p' }), true],
    ['message no session', ok('message', { prompt: 'p' }), false],
    ['interrupt ok', ok('interrupt', { sessionIds: ['a', 'b'] }), true],
    ['interrupt empty', ok('interrupt', { sessionIds: [] }), false],
    ['interrupt non-strings', ok('interrupt', { sessionIds: [1] }), false],
    ['subscribe all', ok('subscribe', {}), true],
    ['subscribe topics', ok('subscribe', { topics: ['sessions', 'updates'] }), true],
    ['subscribe unknown topic', ok('subscribe', { topics: ['nope'] }), false],
    ['payload is an array', ok('stop', []), false],
  ])('%s', (_name, req, valid) => {
    const r = checkRequest(req);
    expect(r.ok).toBe(valid);
    if (!r.ok) {
      expect(r.error.code).toBe('E_BAD_REQUEST');
      expect(r.id).toBe('r1');
    }
  });

  it("reads a request without a version as version 1 (the design notes' requests)", () => {
    expect(checkRequest({ id: 'q', action: 'ping' })).toMatchObject({
      ok: true,
      request: { v: 1, id: 'q', action: 'ping' },
    });
  });

  it('names both versions on a mismatch and keeps the id', () => {
    const r = checkRequest({ v: 3, id: 'q', action: 'ping' });
    expect(r).toMatchObject({
      ok: false,
      id: 'q',
      error: { code: 'E_PROTOCOL', details: { expected: 1, received: 3 } },
    });
    if (!r.ok) expect(r.error.message).toMatch(/v3.*v1/);
  });

  it('rejects non-objects, missing ids and unknown actions', () => {
    expect(parseRequestLine('[1]')).toMatchObject({ ok: false, id: null, error: { code: 'E_BAD_REQUEST' } });
    expect(parseRequestLine('nope')).toMatchObject({ ok: false, id: null, error: { code: 'E_BAD_REQUEST' } });
    expect(checkRequest({ v: 1, action: 'ping' })).toMatchObject({ ok: false, id: null });
    const r = checkRequest({ v: 1, id: 'z', action: 'fly' });
    expect(r).toMatchObject({ ok: false, id: 'z' });
    if (!r.ok) expect(r.error.message).toContain('"fly"');
  });
});

describe('frame guards and topics', () => {
  it('recognises responses and events', () => {
    expect(isResponseFrame({ v: 1, id: 'a', ok: true, result: null })).toBe(true);
    expect(isResponseFrame({ v: 1, id: null, ok: false, error: { code: 'E_X', message: 'm' } })).toBe(true);
    expect(isResponseFrame({ v: 1, id: 'a', ok: false, error: 'boom' })).toBe(false);
    expect(isResponseFrame({ v: 1, id: 'a', ok: true })).toBe(false);
    expect(isEventFrame({ v: 1, id: 'a', event: { type: 'future.thing' } })).toBe(true);
    expect(isEventFrame({ v: 1, id: 'a', event: {} })).toBe(false);
  });
  it('derives topics from event types', () => {
    expect(topicOf({ type: 'session.created' })).toBe('sessions');
    expect(topicOf({ type: 'instance.foreground' })).toBe('instance');
    expect(topicOf({ type: 'update' })).toBe('updates');
  });
});

describe('LineDecoder', () => {
  it('splits lines across chunks, keeps split UTF-8 whole, drops CR and blank lines', () => {
    const d = new LineDecoder(100);
    const bytes = Buffer.from('{"a":"é"}\r\n\n{"b":1}\n{"c"');
    const cut = bytes.indexOf(0xa9); // second byte of é
    expect(d.push(bytes.subarray(0, cut)).lines).toEqual([]);
    expect(d.push(bytes.subarray(cut)).lines).toEqual(['{"a":"é"}', '{"b":1}']);
    expect(d.pendingBytes).toBe(4);
    expect(d.push(Buffer.from(':2}\n'))).toEqual({ lines: ['{"c":2}'], overflow: false });
  });
  it('overflows on a long line, complete or not, and stays overflowed', () => {
    const a = new LineDecoder(8);
    expect(a.push(Buffer.from('12345678\n123456789\nok\n'))).toEqual({ lines: ['12345678'], overflow: true });
    expect(a.push(Buffer.from('ok\n'))).toEqual({ lines: [], overflow: true });
    const b = new LineDecoder(8);
    expect(b.push(Buffer.from('12345')).overflow).toBe(false);
    expect(b.push(Buffer.from('6789')).overflow).toBe(true);
  });
});
