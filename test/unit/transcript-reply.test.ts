// The Stop hook waits until the turn's reply is in Claude's transcript (a real one, kept as a
// fixture): cut the file where Claude might be when the hook starts and ask.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { replyWritten } from '../../src/claude/transcript-usage.js';

const lines = readFileSync(path.join(__dirname, '../fixtures/transcripts/interactive-root.jsonl'), 'utf8')
  .trim()
  .split('\n');
const typeOf = (l: string): string => (JSON.parse(l) as { type: string }).type;
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cut(n: number, tail = ''): string {
  dir = mkdtempSync(path.join(tmpdir(), 'klaude-reply-'));
  const f = path.join(dir, 't.jsonl');
  writeFileSync(f, `${lines.slice(0, n).join('\n')}\n${tail}`);
  return f;
}

describe('replyWritten', () => {
  it('no: the last entry is the prompt (or a tool result), with only bookkeeping after it', () => {
    const prompt = lines.findIndex((l) => typeOf(l) === 'user');
    expect(replyWritten(cut(prompt + 1))).toBe(false);
    expect(replyWritten(cut(prompt + 2))).toBe(false); // + an attachment
  });
  it('no: only the bookkeeping Claude writes first (ai-title, mode…), none of the turn yet', () => {
    const prompt = lines.findIndex((l) => typeOf(l) === 'user');
    expect(prompt).toBeGreaterThan(0);
    expect(replyWritten(cut(prompt))).toBe(false);
  });
  it('no: a half-written last line', () => {
    const reply = lines.findIndex((l) => typeOf(l) === 'assistant');
    expect(replyWritten(cut(reply, lines[reply]!.slice(0, 40)))).toBe(false);
  });
  it('yes: the reply is there (with queue bookkeeping or the stop summary after it), or there is no file', () => {
    const reply = lines.findIndex((l) => typeOf(l) === 'assistant');
    expect(replyWritten(cut(reply + 1))).toBe(true);
    expect(replyWritten(cut(reply + 3))).toBe(true); // + two queue-operation entries
    expect(replyWritten(cut(lines.length))).toBe(true);
    expect(replyWritten(path.join(dir, 'missing.jsonl'))).toBe(true);
  });
});
