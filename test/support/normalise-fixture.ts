// Run a runtime normaliser over a captured fixture (test/fixtures/<cli>/*.ndjson) and view the
// events compactly, for table-driven normaliser tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEventInput } from '../../src/core/events.js';
import type { Normaliser } from '../../src/adapters/runtime-adapter.js';
import { REPO_ROOT } from './klaude-bin.js';

export function fixtureLines(cli: string, name: string): string[] {
  return readFileSync(join(REPO_ROOT, 'test', 'fixtures', cli, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

export interface FixtureRun {
  /** Call noteInterrupt() after this line index. */
  interruptAfter?: number;
  /** Then report the process exit (normaliser.end). */
  exit?: { code: number | null; signal?: NodeJS.Signals | null; stderr?: string };
}

export function runFixture(n: Normaliser, lines: string[], o: FixtureRun = {}): AgentEventInput[] {
  const out: AgentEventInput[] = [];
  lines.forEach((l, i) => {
    out.push(...n.line(l));
    if (o.interruptAfter === i) n.noteInterrupt();
  });
  if (o.exit) out.push(...n.end({ code: o.exit.code, signal: o.exit.signal ?? null, stderr: o.exit.stderr ?? '' }));
  return out;
}

/** type plus the fields a case cares about, one string per event. */
export function brief(e: AgentEventInput): string {
  switch (e.type) {
    case 'init':
      return `init ${e.runtime}`;
    case 'text':
      return `text ${JSON.stringify(e.text)}`;
    case 'update':
      return `update ${e.text}`;
    case 'tool_call':
      return `tool_call ${e.name}: ${e.summary}`;
    case 'tool_result':
      return `tool_result ${e.name ?? '?'}${e.isError ? ' error' : ''}: ${e.output.replace(/\n/g, '⏎').slice(0, 50).trimEnd()}`;
    case 'usage':
      return 'usage';
    case 'error':
      return `error ${e.message.slice(0, 60)}`;
    case 'done':
      return `done ${e.status}`;
    default:
      return e.type;
  }
}

export const doneOf = (events: AgentEventInput[]) =>
  events.filter((e): e is Extract<AgentEventInput, { type: 'done' }> => e.type === 'done');
