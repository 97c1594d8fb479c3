// Token streaming and retries, the pure parts: claude's stream_event / api_retry lines (real
// captures), the runtime's delta coalescing, the terminal printer, the log pane's folding.
import { describe, expect, it } from 'vitest';
import { describeRetry, type AgentEvent, type AgentEventInput } from '../../src/core/events.js';
import { createFormatter } from '../../src/logs/format.js';
import { appendMerged } from '../../src/logs/merge-deltas.js';
import { createStreamPrinter } from '../../src/logs/stream-print.js';
import { createClaudeNormaliser } from '../../src/adapters/claude/normaliser.js';
import { codexRetry } from '../../src/adapters/codex/normaliser.js';
import { DeltaCoalescer } from '../../src/runtime/delta-coalescer.js';
import { fixtureLines, runFixture } from '../support/normalise-fixture.js';

const run = (name: string): AgentEventInput[] => runFixture(createClaudeNormaliser(), fixtureLines('claude', name), {});

describe('claude normaliser: partial messages and retries', () => {
  it('turns text deltas into text_delta events, and the assistant line still closes the message', () => {
    const out = run('print-partial.ndjson').filter((e) => e.type === 'text_delta' || e.type === 'text');
    expect(out).toEqual([
      { type: 'text_delta', text: 'Streaming' },
      { type: 'text_delta', text: ' in three' },
      { type: 'text_delta', text: ' parts.' },
      { type: 'text', text: 'Streaming in three parts.' },
    ]);
  });

  it('reads api_retry lines of an unreachable API, an overloaded one and a rate limit', () => {
    const unreachable = run('print-retry-unreachable.ndjson').filter((e) => e.type === 'retry');
    expect(unreachable.length).toBeGreaterThanOrEqual(3);
    expect(unreachable[0]).toMatchObject({
      type: 'retry',
      attempt: 1,
      maxAttempts: 10,
      kind: 'unreachable',
      reason: 'no connection to the API',
    });
    expect(describeRetry(unreachable[2] as Extract<AgentEvent, { type: 'retry' }>)).toMatch(
      /^API unreachable — retry 3\/10 in \d\.\d s: no connection to the API$/,
    );
    const [ovl] = run('print-retry-overloaded.ndjson').filter((e) => e.type === 'retry');
    expect(ovl).toMatchObject({ kind: 'overloaded', reason: 'overloaded (HTTP 529)' });
    const [rl] = run('print-retry-rate-limit.ndjson').filter((e) => e.type === 'retry');
    expect(rl).toMatchObject({ kind: 'rate_limit', reason: 'rate limit (HTTP 429)' });
    expect(describeRetry({ ...(rl as Extract<AgentEvent, { type: 'retry' }>) })).toMatch(
      /^rate limited — retry 1\/10 in \d+ ms: rate limit \(HTTP 429\)$/,
    );
  });

  it('takes codex reconnect messages as retries', () => {
    expect(
      codexRetry('Reconnecting... 2/5 (stream disconnected before completion: error sending request)'),
    ).toMatchObject({
      type: 'retry',
      attempt: 2,
      maxAttempts: 5,
      reason: 'stream disconnected before completion: error sending request',
    });
    expect(codexRetry('something else')).toBeNull();
  });
});

describe('delta coalescing', () => {
  it('writes the first piece at once, then at most one line per interval, and flushes before other events', async () => {
    const out: string[] = [];
    const c = new DeltaCoalescer((e) => out.push(e.text), 50);
    c.push({ type: 'text_delta', text: 'a' });
    expect(out).toEqual(['a']);
    for (const t of ['b', 'c', 'd']) c.push({ type: 'text_delta', text: t });
    expect(out).toEqual(['a']);
    await new Promise((r) => setTimeout(r, 80));
    expect(out).toEqual(['a', 'bcd']);
    c.push({ type: 'text_delta', text: 'e' });
    c.push({ type: 'thinking_delta', text: 'hm' }); // another kind: the text goes out first
    c.flush();
    expect(out).toEqual(['a', 'bcd', 'e', 'hm']);
    c.dispose();
  });
});

const ev = (e: AgentEventInput, ts = 0): AgentEvent => ({ ts, ...e }) as AgentEvent;

describe('stream printer', () => {
  it('prints pieces as they come and only the rest of the whole text', () => {
    const p = createStreamPrinter(createFormatter({}));
    const bytes = [
      p.print(ev({ type: 'text_delta', text: '\n\nHel' })),
      p.print(ev({ type: 'text_delta', text: 'lo wor' })),
      p.print(ev({ type: 'text', text: 'Hello world.' })),
      p.print(ev({ type: 'tool_call', id: 't', name: 'Bash', summary: 'ls' })),
    ];
    expect(bytes).toEqual(['Hel', 'lo wor', 'ld.\n', '→ Bash: ls\n']);
  });

  it('closes an open line before other events and at the end; a late reader gets whole text once', () => {
    const p = createStreamPrinter(createFormatter({}));
    expect(p.print(ev({ type: 'text_delta', text: 'cut off' }))).toBe('cut off');
    expect(p.print(ev({ type: 'error', message: 'boom' }))).toBe('\n✗ error: boom\n');
    expect(p.print(ev({ type: 'text_delta', text: 'again' }))).toBe('again');
    expect(p.finish()).toBe('\n');
    const late = createStreamPrinter(createFormatter({}));
    expect(late.print(ev({ type: 'text', text: 'Whole.' }))).toBe('Whole.\n');
  });
});

describe('stream printer, thinking', () => {
  it('shows thinking pieces after ∴ on their own line, and switching kinds ends the open line', () => {
    const p = createStreamPrinter(createFormatter({}));
    const bytes = [
      p.print(ev({ type: 'thinking_delta', text: '\n\n' })),
      p.print(ev({ type: 'thinking_delta', text: '\nhm' })),
      p.print(ev({ type: 'thinking_delta', text: ' ok' })),
      p.print(ev({ type: 'text_delta', text: '\nHi' })),
      p.print(ev({ type: 'thinking_delta', text: 'again' })),
      p.finish(),
    ];
    expect(bytes).toEqual(['', '∴ hm', ' ok', '\nHi', '\n∴ again', '\n']);
    expect(
      createStreamPrinter(createFormatter({}), { showThinking: false }).print(
        ev({ type: 'thinking_delta', text: 'x' }),
      ),
    ).toBe('');
  });
});

describe('stream printer, printTo', () => {
  it('writes what print returns, in one write, and a long text apart from its newline', () => {
    const events = [
      ev({ type: 'tool_call', id: 't', name: 'Bash', summary: 'ls' }),
      ev({ type: 'text_delta', text: 'Hel' }),
      ev({ type: 'text', text: 'Hello.' }),
      ev({ type: 'text', text: `${'x'.repeat(99)}\n`.repeat(2000) }),
      ev({ type: 'text_delta', text: 'y'.repeat(10) }),
      ev({ type: 'text', text: 'y'.repeat(100_000) }),
    ];
    const a = createStreamPrinter(createFormatter({}));
    const b = createStreamPrinter(createFormatter({}));
    for (const e of events) {
      const writes: string[] = [];
      b.printTo(e, (s) => writes.push(s));
      const whole = a.print(e);
      expect(writes.join('')).toBe(whole);
      if (whole.length < 64 * 1024) expect(writes.length).toBe(whole === '' ? 0 : 1);
      else expect(writes.at(-1)).toBe('\n');
    }
  });
});

describe('log pane folding', () => {
  it('joins pieces into one event and replaces them with the whole text, without touching the input', () => {
    const a = appendMerged([], ev({ type: 'text_delta', text: 'Hel' }));
    const b = appendMerged(a, ev({ type: 'text_delta', text: 'lo' }));
    expect(a).toEqual([ev({ type: 'text_delta', text: 'Hel' })]);
    expect(b).toEqual([ev({ type: 'text_delta', text: 'Hello' })]);
    const c = appendMerged(b, ev({ type: 'text', text: 'Hello!' }));
    expect(c).toEqual([ev({ type: 'text', text: 'Hello!' })]);
  });
});

describe('the activity column', () => {
  it('shows a running session’s elapsed time and activity, a failed one’s reason, nothing otherwise', async () => {
    const { activityCell } = await import('../../src/commands/sessions/sessions-cells.js');
    const base = { activity: null, runStartedAt: null, updatedAt: 0, error: null };
    expect(activityCell({ ...base, status: 'running', activity: 'Bash: npm test', runStartedAt: 1000 }, 66_000)).toBe(
      '1m05s Bash: npm test',
    );
    expect(
      activityCell(
        {
          ...base,
          status: 'running',
          activity: 'API unreachable — retry 3/10 in 2.2 s: no connection to the API',
          runStartedAt: 0,
        },
        8000,
      ),
    ).toBe('8s API unreachable — retry 3/10 in 2.2 s: no connection to the API');
    expect(activityCell({ ...base, status: 'failed', error: 'claude exited with code 1: boom' }, 0)).toBe(
      'claude exited with code 1: boom',
    );
    expect(activityCell({ ...base, status: 'done', activity: 'stale' }, 0)).toBe('');
    // An interactive session whose last turn failed (StopFailure) is idle, and says why.
    expect(activityCell({ ...base, status: 'idle', error: 'rate limited: API Error: 429 slow down' }, 0)).toBe(
      '✗ rate limited: API Error: 429 slow down',
    );
    expect(activityCell({ ...base, status: 'idle' }, 0)).toBe('');
  });

  it('follows what the runtime sees: writing, a tool, a retry, nothing once done', async () => {
    const { activityOf } = await import('../../src/runtime/run-record.js');
    expect(activityOf({ type: 'text_delta', text: 'x' })).toBe('writing');
    expect(activityOf({ type: 'thinking_delta', text: 'x' })).toBe('thinking');
    expect(activityOf({ type: 'tool_call', id: 't', name: 'Bash', summary: 'npm test' })).toBe('Bash: npm test');
    expect(
      activityOf({
        type: 'retry',
        attempt: 2,
        maxAttempts: 10,
        delayMs: 1100,
        reason: 'overloaded (HTTP 529)',
        kind: 'overloaded',
      }),
    ).toBe('API overloaded — retry 2/10 in 1.1 s: overloaded (HTTP 529)');
    expect(activityOf({ type: 'done', status: 'done' })).toBeNull();
    expect(activityOf({ type: 'usage' })).toBeUndefined();
  });
});

describe('stream printer, joined mid-message', () => {
  it('prints only the rest of the text after the pieces it saw', () => {
    const p = createStreamPrinter(createFormatter({}));
    expect(p.print(ev({ type: 'text_delta', text: 'middle of the message, ' }))).toBe('middle of the message, ');
    expect(p.print(ev({ type: 'text', text: 'Start of it, middle of the message, end.' }))).toBe('end.\n');
  });
});
