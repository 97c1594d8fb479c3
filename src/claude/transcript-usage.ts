/**
 * Token usage recorded in Claude Code transcripts (`message.usage` of assistant entries), for
 * interactive sessions, whose turns never pass through a klaude runtime. Claude writes one entry
 * per content block of a reply, each repeating the reply's usage: counted once per message id.
 * Transcripts hold tokens, not cost (Claude keeps cost only in its own session totals).
 * Kept small and separate from transcript following: it only sums.
 */
import { readFileSync } from 'node:fs';

export interface TranscriptUsage {
  /** input + cache read + cache creation tokens. */
  tokensIn: number;
  tokensOut: number;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function transcriptUsage(files: Iterable<string>): TranscriptUsage {
  const seen = new Set<string>();
  const total = { tokensIn: 0, tokensOut: 0 };
  for (const file of new Set(files)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // not written yet, or removed
    }
    for (const line of text.split('\n')) {
      if (!line.includes('"usage"') || !line.includes('"assistant"')) continue;
      let e: { type?: string; message?: { id?: string; usage?: Record<string, unknown> } };
      try {
        e = JSON.parse(line);
      } catch {
        continue; // a line being written
      }
      const u = e.type === 'assistant' ? e.message?.usage : undefined;
      if (!u) continue;
      const id = e.message?.id;
      if (id) {
        if (seen.has(id)) continue;
        seen.add(id);
      }
      total.tokensIn += num(u.input_tokens) + num(u.cache_read_input_tokens) + num(u.cache_creation_input_tokens);
      total.tokensOut += num(u.output_tokens);
    }
  }
  return total;
}
