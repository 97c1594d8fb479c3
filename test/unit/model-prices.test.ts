// The running turn's cost: each model's prices against what claude 2.1.197 itself charged the
// stand-in's usage (its result's total_cost_usd, one turn each, `--model <m>`), and the per-turn sum
// of claude's stream-json lines (message_start, the assistant lines, message_delta; ends at result).
import { describe, expect, it } from 'vitest';
import { TurnSpend } from '../../src/adapters/claude/spend.js';
import { messageCostUsd, modelRates } from '../../src/claude/model-prices.js';

describe('model prices', () => {
  // [model, input tokens, output tokens, claude's total_cost_usd]
  const charged: [string, number, number, number][] = [
    ['claude-sonnet-4-5', 1728, 8, 0.005304],
    ['claude-sonnet-4-6', 1728, 8, 0.005304],
    ['claude-haiku-4-5', 1728, 8, 0.001768],
    ['claude-3-5-haiku-20241022', 1728, 8, 0.0014144],
    ['claude-opus-4-6', 1728, 8, 0.00884],
    ['claude-opus-4-8', 1650, 8, 0.00845],
    ['some-unknown-model', 1650, 8, 0.00845],
  ];
  it.each(charged)('%s: as claude charged it', (model, input, output, usd) => {
    expect(messageCostUsd(model, { input_tokens: input, output_tokens: output })).toBeCloseTo(usd, 9);
  });

  it.each([
    ['claude-opus-4-20250514', [15, 75]],
    ['claude-opus-4-1-20250805', [15, 75]],
    ['claude-3-opus-20240229', [15, 75]],
    ['claude-opus-4-5-20251101', [5, 25]],
    ['claude-opus-4-10', [5, 25]],
    ['claude-3-haiku-20240307', [0.25, 1.25]],
  ] as const)('%s costs %j per million', (model, rates) => {
    expect(modelRates(model)).toEqual(rates);
  });

  it('prices cache writes (5 minutes, 1 hour) and reads', () => {
    const u = {
      input_tokens: 1000,
      cache_read_input_tokens: 10_000,
      cache_creation_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 1000 },
    };
    expect(messageCostUsd('claude-sonnet-4-5', u)).toBeCloseTo((1000 + 1000 + 2500 + 2000) * 3e-6, 12);
    expect(messageCostUsd('claude-sonnet-4-5', { cache_creation_input_tokens: 1000 })).toBeCloseTo(1250 * 3e-6, 12);
  });
});

describe('TurnSpend', () => {
  const start = (id: string, input: number) => ({
    type: 'stream_event',
    event: {
      type: 'message_start',
      message: { id, model: 'claude-opus-4-8', usage: { input_tokens: input, output_tokens: 1 } },
    },
  });
  const delta = (output: number) => ({
    type: 'stream_event',
    event: { type: 'message_delta', usage: { output_tokens: output } },
  });
  const assistant = (id: string, input: number, parent: string | null = null) => ({
    type: 'assistant',
    parent_tool_use_id: parent,
    message: { id, model: 'claude-opus-4-8', usage: { input_tokens: input, output_tokens: 1 } },
  });

  it('sums the turn as it goes, each response once, and starts again after the result', () => {
    const seen: number[] = [];
    const t = new TurnSpend((usd) => seen.push(usd));
    // Two responses as claude 2.1.197 streams them (four of them made $0.03824 in all: 7048 in, 120 out).
    for (const o of [start('m1', 1650), assistant('m1', 1650), assistant('m1', 1650), delta(37)]) t.line(o);
    for (const o of [start('m2', 1725), assistant('m2', 1725), delta(37)]) t.line(o);
    expect(seen.at(-1)).toBeCloseTo(((1650 + 1725) * 5 + 74 * 25) / 1e6, 12);
    expect(seen).toHaveLength(4); // each start and each delta; the repeated assistant lines add nothing
    // A sub-agent's response without stream events (its assistant line only) counts too.
    t.line(assistant('sub1', 1000, 'toolu_1'));
    expect(seen.at(-1)).toBeCloseTo(((1650 + 1725 + 1000) * 5 + 75 * 25) / 1e6, 12);
    t.line({ type: 'result', total_cost_usd: 0.03 });
    t.line(start('m3', 100));
    expect(seen.at(-1)).toBeCloseTo((100 * 5 + 25) / 1e6, 12);
  });
});
