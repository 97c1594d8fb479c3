// Claude's transcript → events, on real transcripts written by claude 2.1.197 (test/fixtures/transcripts,
// captured by test/e2e/live-interactive.test.ts with KLAUDE_KEEP_TRANSCRIPTS): interactive entries
// only, in order, tool results named after their call; entries of headless runs (sdk-cli) left out.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { createTranscriptNormaliser } from '../../src/adapters/claude/transcript-normaliser.js';
import { mergeByTime, readTranscripts } from '../../src/agent-ops/timeline.js';
import { REPO_ROOT } from '../support/klaude-bin.js';

const events = (name: string): AgentEvent[] => {
  const n = createTranscriptNormaliser();
  return readFileSync(join(REPO_ROOT, 'test/fixtures/transcripts', name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => n.line(l));
};

const brief = (e: AgentEvent): string =>
  e.type === 'user' || e.type === 'text'
    ? `${e.type} ${e.text}`
    : e.type === 'tool_call'
      ? `tool_call ${e.name}: ${e.summary}`
      : e.type === 'tool_result'
        ? `tool_result ${e.name}${e.isError ? ' error' : ''}: ${e.output.trim()}`
        : e.type === 'status'
          ? `status ${e.status}: ${e.reason}`
          : e.type;

describe('transcript normaliser', () => {
  it('marks turns the person ended: a declined permission, Esc during a reply (test/e2e/interrupt-turn.test.ts)', () => {
    expect(events('interrupted-root.jsonl').map(brief)).toEqual([
      'user run: touch declined-41.txt',
      'tool_call Bash: touch declined-41.txt',
      expect.stringMatching(/^tool_result Bash error: The user doesn't want to proceed/),
      'status interrupted: permission declined',
      'user slow-essay please',
      'text essay line 1\n',
      'status interrupted: by you',
      'user after-esc-52',
      'text Answered after Esc',
    ]);
  });

  it('reads the interactive root: prompts, text, a Bash call and its result', () => {
    expect(events('interactive-root.jsonl').map(brief)).toEqual([
      'user root-hello-31',
      'text Reply to: root-hello-31',
      'user run: echo tool-out-77',
      'tool_call Bash: echo tool-out-77',
      'tool_result Bash: tool-out-77',
      'text Tool output: tool-out-77',
    ]);
  });

  it('leaves out what a headless run wrote (the session log has it)', () => {
    expect(events('checked-out-agent.jsonl').map(brief)).toEqual([
      'user after-checkout-9',
      'text Reply to: after-checkout-9',
    ]);
  });

  it('stamps events with the entry time, so they merge with the log in time order', () => {
    const t = events('checked-out-agent.jsonl');
    expect(t[0]!.ts).toBe(Date.parse('2026-11-23T18:52:57.451Z'));
    const log: AgentEvent[] = [
      { ts: t[0]!.ts - 5000, type: 'text', text: 'headless' },
      { ts: t[1]!.ts + 5000, type: 'text', text: 'later' },
    ];
    expect(mergeByTime(log, t).map(brief)).toEqual([
      'text headless',
      'user after-checkout-9',
      'text Reply to: after-checkout-9',
      'text later',
    ]);
  });

  it('puts a transcript in the order its entries were made, whatever order claude appended them in', async () => {
    const lines = readFileSync(join(REPO_ROOT, 'test/fixtures/transcripts/interactive-root.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const prompt = lines.findIndex((l) => l.includes('"type":"user"') && l.includes('root-hello-31'));
    const reply = lines.findIndex((l, i) => i > prompt && l.includes('"type":"assistant"'));
    // The prompt's entry appended after its reply's.
    const swapped = [
      ...lines.slice(0, prompt),
      ...lines.slice(prompt + 1, reply + 1),
      lines[prompt]!,
      ...lines.slice(reply + 1),
    ];
    const dir = mkdtempSync(join(tmpdir(), 'klaude-transcript-'));
    try {
      writeFileSync(join(dir, 't.jsonl'), `${swapped.join('\n')}\n`);
      const t = await readTranscripts([join(dir, 't.jsonl')]);
      expect(t.events.map(brief).slice(0, 2)).toEqual(['user root-hello-31', 'text Reply to: root-hello-31']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names slash commands and skips meta and broken lines', () => {
    const n = createTranscriptNormaliser();
    const at = '2026-01-01T00:00:00.000Z';
    expect(
      n.line(
        JSON.stringify({
          type: 'user',
          timestamp: at,
          entrypoint: 'cli',
          message: {
            role: 'user',
            content:
              '<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>',
          },
        }),
      ),
    ).toMatchObject([{ type: 'user', text: '/clear' }]);
    // Leaving claude is not a prompt.
    const exit = (name: string): string =>
      JSON.stringify({
        type: 'user',
        timestamp: at,
        entrypoint: 'cli',
        message: { role: 'user', content: `<command-name>${name}</command-name>\n<command-args></command-args>` },
      });
    expect(n.line(exit('/exit'))).toEqual([]);
    expect(n.line(exit('quit'))).toEqual([]);
    expect(
      n.line(
        JSON.stringify({ type: 'user', timestamp: at, isMeta: true, message: { role: 'user', content: 'Caveat: …' } }),
      ),
    ).toEqual([]);
    expect(
      n.line(
        JSON.stringify({
          type: 'user',
          timestamp: at,
          message: { role: 'user', content: '<local-command-stdout></local-command-stdout>' },
        }),
      ),
    ).toEqual([]);
    expect(n.line('{"type":"user"')).toEqual([]);
  });
});
