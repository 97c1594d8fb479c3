/**
 * What Claude Code charges for a model response, from its usage: for the cost of a turn while it
 * runs (a spend limit must see it grow before the turn's `result` gives claude's own total). An
 * estimate: the `result`'s `total_cost_usd` replaces it when the turn ends.
 *
 * Dollars per million tokens, as claude 2.1.197 priced them against the stand-in (docs/ARCHITECTURE.md
 * Budgets; checked 2026-11-29 with `--model`): opus 4.5 and later $5 in / $25 out (and any model claude
 * does not know: it charged those for an unknown name), sonnet $3 / $15, haiku 4.5 $1 / $5, haiku 3.5
 * $0.80 / $4. Not seen (Anthropic's list prices): opus 4 and 4.1 $15 / $75 (claude 2.1.197 sent an
 * opus 4.1 request as opus 4.8), haiku 3 $0.25 / $1.25; cache writes 1.25× the input price
 * (five-minute cache) or 2× (one-hour cache), cache reads 0.1×.
 */

/** The usage object of a Messages API response (message_start, message_delta, assistant lines). */
export interface MessageUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  cache_read_input_tokens?: unknown;
  cache_creation_input_tokens?: unknown;
  cache_creation?: unknown;
}

/** [input, output] dollars per million tokens. */
export function modelRates(model: string): readonly [number, number] {
  const m = model.toLowerCase();
  if (m.includes('haiku')) {
    if (/3-5-haiku|haiku-3-5/.test(m)) return [0.8, 4];
    if (/3-haiku|haiku-3/.test(m)) return [0.25, 1.25];
    return [1, 5];
  }
  if (m.includes('sonnet')) return [3, 15];
  if (m.includes('3-opus')) return [15, 75];
  // opus-<major>[-<minor>], the minor one or two digits (not the date of `claude-opus-4-20250514`).
  const v = /opus-(\d+)(?:-(\d{1,2}))?(?!\d)/.exec(m);
  if (v && Number(v[1]) * 100 + Number(v[2] ?? 0) < 405) return [15, 75];
  return [5, 25];
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** Dollars for one response's usage. */
export function messageCostUsd(model: string, u: MessageUsage): number {
  const [inRate, outRate] = modelRates(model);
  const split = u.cache_creation !== null && typeof u.cache_creation === 'object' ? u.cache_creation : null;
  const hour = split ? n((split as Record<string, unknown>).ephemeral_1h_input_tokens) : 0;
  const written = n(u.cache_creation_input_tokens);
  const fiveMin = split ? n((split as Record<string, unknown>).ephemeral_5m_input_tokens) : written;
  const writes = hour * 2 + Math.max(fiveMin, written - hour) * 1.25;
  const inputs = n(u.input_tokens) + writes + n(u.cache_read_input_tokens) * 0.1;
  return (inputs * inRate + n(u.output_tokens) * outRate) / 1e6;
}
