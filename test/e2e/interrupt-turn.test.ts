// Turns that end without a Stop hook, with the real claude in the supervisor's foreground: one the
// person ends by hand (claude runs no hook at all) and one an API error ends (StopFailure). The row
// must still say the turn is over, not `running` until the next prompt. A permission dialog says
// `waiting` at once (PermissionRequest), not ~6 s later.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PtySession } from '../support/pty-driver.js';
import {
  eventKinds,
  keepTranscript,
  READY,
  readDb,
  runResponder,
  sessions,
  startKlaude,
  submit,
  waitForDb,
} from './supervisor-helpers.js';
import { sessionStatus, sessionWithConversation, startTalk, stopHosts } from './talk-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

// A slow reply: six lines, a second and a half apart. (After an interrupt claude sends its marker
// with the next prompt, in one message: match on words, not on the start.)
const fx = useAgentHomes({
  responder: (r) => {
    if (r.prompt.includes('slow-essay'))
      return {
        text: 'essay line 1\nessay line 2\nessay line 3\nessay line 4\nessay line 5\nessay line 6\n',
        chunks: 6,
        delayMs: 1500,
      };
    if (r.prompt.includes('after-esc-52')) return { text: 'Answered after Esc' };
    if (r.prompt.includes('fail-63'))
      return { error: { status: 400, type: 'invalid_request_error', message: 'bad-request-63' } };
    return runResponder(r);
  },
});
let home: AgentHome;
let term: PtySession;
let talk: { home: AgentHome; term?: PtySession; id?: string } | undefined;

beforeAll(() => {
  // Bash is not allowed: a command that writes asks the person first.
  home = fx.home({ supervisor: true, allowBash: false, config: false });
});
afterEach(async () => {
  await talk?.term?.dispose();
  if (talk?.id) await stopHosts(talk.home, talk.id);
});
afterAll(async () => {
  await term?.dispose();
});

const root = () => sessions(home).find((s) => s.parent_id === null)!;
const interrupts = (id: string, h = home) =>
  readDb(h, (db) =>
    (
      db
        .prepare("SELECT payload FROM events WHERE klaude_session_id = ? AND kind = 'claude.interrupted' ORDER BY id")
        .all(id) as { payload: string }[]
    ).map((e) => JSON.parse(e.payload) as { forTool: boolean }),
  );

describe('a turn the person interrupts', () => {
  it('a declined permission: waiting while asked, idle once declined', async () => {
    term = startKlaude(home, [], { cols: 110, rows: 40 });
    await term.waitForText(READY, { timeoutMs: 60_000 });
    await submit(term, 'run: touch declined-41.txt');
    await term.waitForText(/Do you want to proceed/, { timeoutMs: 60_000 });
    const id = root().id;
    // Claude's own permission_prompt Notification comes ~6 s after the dialog; PermissionRequest
    // (in the background) as it opens, and it is what made the session waiting.
    await waitForDb(
      'waiting while asked',
      () => root().status === 'waiting' && eventKinds(home, id).includes('hook.PermissionRequest'),
      20_000,
    );
    const kinds = eventKinds(home, id);
    const notified = kinds.indexOf('hook.Notification');
    expect(notified === -1 || notified > kinds.indexOf('hook.PermissionRequest')).toBe(true);
    expect(root().activity).toBe('Bash: touch declined-41.txt');

    term.press('escape');
    await term.waitForText(/Interrupted/, { timeoutMs: 20_000 });
    await waitForDb('idle after the decline', () => root().status === 'idle' && root().activity === null, 20_000);
    expect(interrupts(id)).toEqual([expect.objectContaining({ forTool: true })]);
  });

  it('Esc during a streamed reply: idle, and the next prompt runs as usual', async () => {
    const id = root().id;
    await submit(term, 'slow-essay please');
    await term.waitForText('essay line 1', { timeoutMs: 60_000 });
    expect(root()).toMatchObject({ status: 'running' });
    term.press('escape');
    await term.waitForText(/Interrupted/, { timeoutMs: 20_000 });
    await waitForDb('idle after Esc', () => root().status === 'idle' && root().activity === null, 20_000);
    expect(interrupts(id)).toHaveLength(2);
    // The next turn is not ended by the old markers (the transcript is read again when it starts).
    await submit(term, 'after-esc-52');
    await term.waitForText('Answered after Esc', { timeoutMs: 60_000 });
    await waitForDb(
      'the turn ended by Stop',
      () => root().status === 'idle' && eventKinds(home, id).includes('hook.Stop'),
    );
    expect(interrupts(id)).toHaveLength(2);
    const file = readDb(
      home,
      (db) => (db.prepare('SELECT transcript_path AS t FROM sessions WHERE id = ?').get(id) as { t: string }).t,
    );
    keepTranscript(file, 'interrupted-root.jsonl');
    // The log says where each turn was cut.
    const r = await home.k(['logs', id.slice(-8)], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /touch declined-41\.txt[\s\S]*· interrupted: permission declined[\s\S]*essay line 1[\s\S]*· interrupted: by you[\s\S]*Answered after Esc/,
    );
  });

  it('a turn an API error ends (StopFailure, not Stop): idle, and `klaude sessions` says why', async () => {
    const id = root().id;
    await submit(term, 'fail-63 please');
    await waitForDb(
      'idle after the failed turn',
      () => root().status === 'idle' && eventKinds(home, id).includes('hook.StopFailure'),
      30_000,
    );
    const row = readDb(
      home,
      (db) =>
        db.prepare('SELECT error, activity FROM sessions WHERE id = ?').get(id) as {
          error: string | null;
          activity: string | null;
        },
    );
    expect(row.activity).toBeNull();
    // Claude calls a plain 400 `unknown`; its own text names it.
    expect(row.error).toBe('API Error: 400 bad-request-63');
    const r = await home.k(['sessions'], { timeoutMs: 60_000 });
    expect(r.stdout).toMatch(/idle .*✗ API Error: 400 bad-request-63/);
  });

  it('in a `klaude talk` session too (its claude runs in the PTY server)', async () => {
    talk = { home: fx.home({ supervisor: true }) };
    const { id } = await sessionWithConversation(talk.home, 'talk-before-esc');
    talk.id = id;
    talk.term = startTalk(talk.home, [id.slice(-8)]);
    await talk.term.waitForText(READY, { timeoutMs: 60_000 });
    await submit(talk.term, 'slow-essay over talk');
    await talk.term.waitForText('essay line 1', { timeoutMs: 60_000 });
    expect(sessionStatus(talk.home, id)).toBe('running');
    talk.term.press('escape');
    await talk.term.waitForText(/Interrupted/, { timeoutMs: 20_000 });
    await waitForDb('idle after Esc in talk', () => sessionStatus(talk!.home, id) === 'idle', 20_000);
    expect(interrupts(id, talk.home)).toEqual([expect.objectContaining({ forTool: false })]);
  });
});
