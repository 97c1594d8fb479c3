// notify(): each event told once whoever sees it (two DB handles stand for two klaude processes),
// the command gets the event as JSON on stdin, and a failing notifier is logged, never thrown.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { notificationsSent, notify, type NotifyDeps } from '../../src/agent-ops/notify.js';
import { openDb } from '../../src/db/client.js';
import { createSession } from '../../src/db/repos/sessions.js';
import type { Logger } from '../../src/lib/logger.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log = {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (msg: string, data?: Record<string, unknown>) =>
      warnings.push(`${msg} ${String((data?.err as Error | undefined)?.message ?? '')}`),
    error: () => undefined,
    child: () => log,
    file: null,
  };
  return log;
}

describe('notify', () => {
  it('tells an event once across processes; the command reads it on stdin; a dead webhook is only logged', async () => {
    const h = (home = makeTempHome());
    const { db, hash } = seedProject(h);
    const s = createSession(db, { projectId: hash, type: 'coder', status: 'waiting', prompt: 'fix the login test' });
    const out = join(h.root, 'told.jsonl');
    const log = recordingLog();
    const config = {
      'notify.desktop': false,
      'notify.command': `cat >> '${out}'`,
      // Nothing listens on port 9 of loopback: the webhook fails.
      'notify.url': 'http://127.0.0.1:9/hook',
    };
    const other = openDb(h.klaudeHome);
    const event = { kind: 'needs_you' as const, sessionId: s.id, eventKey: `needs_you:approval:1`, detail: 'Bash: ls' };
    const a: NotifyDeps = { db, config, log, env: h.env };
    const b: NotifyDeps = { db: other, config, log, env: h.env };
    expect(() => notify(a, event)).not.toThrow();
    notify(b, event);
    notify(a, { ...event, kind: 'done', eventKey: `done:${s.id}:1` });
    await notificationsSent(10_000);
    other.close();
    db.close();
    expect(existsSync(out)).toBe(true);
    const told = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(told.map((t) => t.event).sort()).toEqual(['done', 'needs_you']);
    expect(told.find((t) => t.event === 'needs_you')).toMatchObject({
      sessionId: s.id,
      type: 'coder',
      projectRoot: h.projectDir,
      text: expect.stringContaining('fix the login test · Bash: ls') as unknown,
    });
    expect(log.warnings.filter((w) => w.startsWith('notifier notify.url failed'))).toHaveLength(2);
  });
});
