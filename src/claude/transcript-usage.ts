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

/**
 * The usage object and message id of an assistant entry, without parsing the whole line (replies
 * can be long; the Stop hook reads the whole transcript): `"usage":{…}` cannot occur unescaped in
 * message text, so the first one is the entry's.
 */
function assistantUsage(line: string): { id: string | null; usage: Record<string, unknown> } | null {
  // (A user entry's tool result may carry a usage object of its own, e.g. the Task tool's.)
  if (!line.includes('"type":"assistant"') || line.includes('"toolUseResult"')) return null;
  const at = line.indexOf('"usage":{');
  if (at === -1) return null;
  const open = at + 8;
  let depth = 0;
  let end = -1;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (c === '"') {
      // Skip a string (usage holds a few, e.g. "service_tier":"standard").
      for (i++; i < line.length && line[i] !== '"'; i++) if (line[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      end = i + 1;
      break;
    }
  }
  if (end === -1) return null; // a line being written
  try {
    const usage = JSON.parse(line.slice(open, end)) as Record<string, unknown>;
    return { id: /"id":"([^"\\]+)"/.exec(line)?.[1] ?? null, usage };
  } catch {
    return null;
  }
}

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
      const u = assistantUsage(line);
      if (!u) continue;
      if (u.id) {
        if (seen.has(u.id)) continue;
        seen.add(u.id);
      }
      total.tokensIn += num(u.usage.input_tokens) + num(u.usage.cache_read_input_tokens) + num(u.usage.cache_creation_input_tokens);
      total.tokensOut += num(u.usage.output_tokens);
    }
  }
  return total;
}
