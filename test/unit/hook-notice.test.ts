// What an interactive claude's hook hands to `klaude __notify`: only the rare transitions, each
// named for good (the notifications table tells a key once).
import { describe, expect, it } from 'vitest';
import type { HookSession } from '../../src/db/repos/hook-records.js';
import { hookNotice } from '../../src/hooks/hook-notice.js';
import { cliEntry } from '../../src/hooks/notify-spawn.js';

const session: HookSession = {
  id: 'S1',
  projectId: 'p',
  type: 'tui',
  status: 'running',
  title: null,
  prompt: 'fix it',
  activity: 'thinking',
  runStartedAt: 1000,
};

describe('hookNotice', () => {
  it('a dialog opening (the move to waiting) needs you, naming the tool; keyed by when', () => {
    const n = hookNotice({
      event: 'PermissionRequest',
      session,
      to: 'waiting',
      p: { tool_name: 'Bash', tool_input: { command: 'npm test' } },
      now: 5,
    });
    expect(n).toEqual({
      kind: 'needs_you',
      sessionId: 'S1',
      eventKey: 'needs_you:dialog:S1:5',
      detail: 'Bash: npm test',
      tool: 'Bash',
      summary: 'npm test',
    });
  });

  it('nothing when the status did not move (claude’s own permission notification for an open dialog)', () => {
    const waiting = { ...session, status: 'waiting' as const };
    const p = { notification_type: 'permission_prompt', message: 'Claude needs your permission' };
    expect(hookNotice({ event: 'Notification', session: waiting, to: undefined, p, now: 9 })).toBeUndefined();
    expect(hookNotice({ event: 'Stop', session, to: 'idle', p: {}, now: 9 })).toBeUndefined();
    expect(hookNotice({ event: 'PostToolUse', session, to: 'running', p: {}, now: 9 })).toBeUndefined();
  });

  it('claude’s idle prompt needs you once per turn; an API error fails the turn once', () => {
    const idle = { ...session, status: 'idle' as const };
    const p = { notification_type: 'idle_prompt', message: 'Claude is waiting for your input' };
    const a = hookNotice({ event: 'Notification', session: idle, to: undefined, p, now: 1 });
    const b = hookNotice({ event: 'Notification', session: idle, to: undefined, p, now: 2 });
    expect(a).toMatchObject({ kind: 'needs_you', eventKey: 'needs_you:idle:S1:1000', detail: p.message });
    expect(b?.eventKey).toBe(a?.eventKey);
    const f = hookNotice({ event: 'StopFailure', session, to: 'idle', p: {}, failure: 'rate limited', now: 3 });
    expect(f).toEqual({ kind: 'failed', sessionId: 'S1', eventKey: 'failed:S1:1000', detail: 'rate limited' });
  });
});

describe('cliEntry', () => {
  it('finds cli.js beside hook.cjs, the CLI itself, and nothing else', () => {
    expect(cliEntry('/x/dist/hook.cjs')).toBe('/x/dist/cli.js');
    expect(cliEntry('/x/dist/cli.js')).toBe('/x/dist/cli.js');
    expect(cliEntry('/x/node_modules/vitest/vitest.mjs')).toBeNull();
    expect(cliEntry(undefined)).toBeNull();
  });
});
