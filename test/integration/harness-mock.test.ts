// The model-API stand-in on its own, spoken to over real HTTP: SSE shapes, scripting, side requests.
import { afterEach, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';

let mock: MockAnthropic | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const userTurn = (content: unknown) => ({ role: 'user', content });
const mainBody = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'claude-opus-4-8',
  stream: true,
  system: [{ type: 'text', text: 'You are an interactive agent that helps users with software engineering tasks.' }],
  tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
  messages,
  ...extra,
});

async function post(m: MockAnthropic, body: unknown, path = '/v1/messages?beta=true') {
  return fetch(m.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Parse an SSE body into [{event, data}] with arrival times. */
async function readSse(res: Response): Promise<{ event: string; data: any; at: number }[]> {
  const out: { event: string; data: any; at: number }[] = [];
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? 'null');
      out.push({ event, data, at: Date.now() });
    }
  }
  return out;
}

describe('harness: mock Anthropic API', () => {
  it('streams a text reply with the full SSE sequence and usage', async () => {
    mock = await startMockAnthropic();
    mock.enqueue({ text: 'Hello there.' });
    const res = await post(mock, mainBody([userTurn('hi')]));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message.usage.input_tokens).toBeGreaterThan(0);
    expect(events[2]!.data.delta).toEqual({ type: 'text_delta', text: 'Hello there.' });
    expect(events[4]!.data.delta.stop_reason).toBe('end_turn');
    expect(events[4]!.data.usage.output_tokens).toBeGreaterThan(0);
  });

  it('records the newest user prompt without system reminders, even when system messages follow it', async () => {
    mock = await startMockAnthropic();
    const res = await post(
      mock,
      mainBody([
        userTurn('old'),
        { role: 'assistant', content: 'ok' },
        userTurn([
          { type: 'text', text: '<system-reminder>\nnoise\n</system-reminder>\n\n' },
          { type: 'text', text: 'the real prompt' },
        ]),
        { role: 'system', content: 'Available agent types: …' },
      ]),
    );
    const events = await readSse(res);
    expect(events[2]!.data.delta.text).toBe('Reply to: the real prompt');
    expect(mock.requests.at(-1)).toMatchObject({
      prompt: 'the real prompt',
      isToolResult: false,
      isSideRequest: false,
      kind: 'messages',
    });
  });

  it('scripts a Bash tool_use and recognises the tool_result turn', async () => {
    mock = await startMockAnthropic();
    mock.enqueue({ bash: { command: 'echo hi' }, text: 'Running.' });
    const events = await readSse(await post(mock, mainBody([userTurn('go')])));
    const starts = events.filter((e) => e.event === 'content_block_start').map((e) => e.data.content_block);
    expect(starts[0]).toEqual({ type: 'text', text: '' });
    expect(starts[1]).toMatchObject({ type: 'tool_use', name: 'Bash' });
    const json = events.find((e) => e.data?.delta?.type === 'input_json_delta')!.data.delta.partial_json;
    expect(JSON.parse(json)).toEqual({ command: 'echo hi', description: 'Run a command' });
    expect(events.find((e) => e.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use');

    const toolUseId = starts[1].id;
    const res = await post(
      mock,
      mainBody([
        userTurn('go'),
        { role: 'assistant', content: [] },
        userTurn([{ type: 'tool_result', tool_use_id: toolUseId, content: 'hi\n' }]),
      ]),
    );
    expect((await readSse(res))[2]!.data.delta.text).toBe('Tool finished.');
    expect(mock.requests.at(-1)).toMatchObject({
      isToolResult: true,
      toolResults: [{ toolUseId, content: 'hi\n', isError: false }],
    });
  });

  it('streams a slow reply in many delayed deltas', async () => {
    mock = await startMockAnthropic();
    mock.enqueue({ text: 'abcdefghij', chunks: 5, delayMs: 60 });
    const events = await readSse(await post(mock, mainBody([userTurn('slow')])));
    const deltas = events.filter((e) => e.data?.delta?.type === 'text_delta');
    expect(deltas.map((d) => d.data.delta.text)).toEqual(['ab', 'cd', 'ef', 'gh', 'ij']);
    expect(deltas.at(-1)!.at - deltas[0]!.at).toBeGreaterThanOrEqual(200);
  });

  it('answers errors like the real API and uses responder, FIFO, then default in that order', async () => {
    mock = await startMockAnthropic({
      responder: (r) => (r.prompt === 'ask responder' ? { text: 'from responder' } : undefined),
    });
    mock.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'busy' } });
    const err = await post(mock, mainBody([userTurn('x')]));
    expect(err.status).toBe(529);
    expect(await err.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } });
    expect(mock.queued()).toBe(0);
    expect((await readSse(await post(mock, mainBody([userTurn('ask responder')]))))[2]!.data.delta.text).toBe(
      'from responder',
    );
    expect((await readSse(await post(mock, mainBody([userTurn('other')]))))[2]!.data.delta.text).toBe(
      'Reply to: other',
    );
  });

  it('answers side requests without consuming the script', async () => {
    mock = await startMockAnthropic();
    mock.enqueue({ text: 'for the main turn' });
    // The shape of the TUI's session-title request (claude 2.1.197).
    const titleBody = {
      model: 'claude-haiku-4-5-20251001',
      stream: true,
      tools: [],
      system: [{ type: 'text', text: 'Generate a concise, sentence-case title (3-7 words) …' }],
      output_config: {
        format: {
          type: 'json_schema',
          schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
        },
      },
      messages: [userTurn([{ type: 'text', text: '<session>\nhello\n</session>' }])],
    };
    const side = await readSse(await post(mock, titleBody));
    expect(JSON.parse(side[2]!.data.delta.text)).toEqual({ title: 'Mock session' });
    expect(mock.requests.at(-1)!.isSideRequest).toBe(true);
    expect(mock.queued()).toBe(1);
    expect((await readSse(await post(mock, mainBody([userTurn('main')]))))[2]!.data.delta.text).toBe(
      'for the main turn',
    );
    expect(mock.mainRequests().map((r) => r.prompt)).toEqual(['main']);
  });

  it('answers non-stream requests with a JSON message, count_tokens, HEAD and 404s', async () => {
    mock = await startMockAnthropic();
    const res = await post(mock, mainBody([userTurn('plain')], { stream: false }));
    expect(await res.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Reply to: plain' }],
      stop_reason: 'end_turn',
    });
    const count = await post(mock, { messages: [userTurn('x')] }, '/v1/messages/count_tokens?beta=true');
    expect(((await count.json()) as any).input_tokens).toBeGreaterThan(0);
    expect((await fetch(mock.url + '/', { method: 'HEAD' })).status).toBe(200);
    const missing = await fetch(mock.url + '/v1/nope');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).type).toBe('error');
  });

  it('hangs until closed, and waitForRequest sees past and future requests or times out', async () => {
    mock = await startMockAnthropic();
    mock.enqueue({ hang: true });
    const pending = post(mock, mainBody([userTurn('hang here')])).then(
      (r) => readSse(r).then(() => 'ended'),
      () => 'failed',
    );
    const seen = await mock.waitForRequest((r) => r.prompt === 'hang here', 5_000);
    expect(seen.index).toBe(0);
    await expect(mock.waitForRequest((r) => r.prompt === 'never', 100)).rejects.toThrow(
      /no matching request within 100 ms/,
    );
    const race = await Promise.race([pending, new Promise((r) => setTimeout(() => r('still hanging'), 300))]);
    expect(race).toBe('still hanging');
    await mock.close();
    expect(['ended', 'failed']).toContain(await pending);
  });
});
