// Interactive sessions are told outside the terminal too (config notify.*), with the real claude in
// klaude's foreground against the Messages-API stand-in: a permission dialog reaches a local webhook
// receiver exactly once as "needs you" (the PermissionRequest hook opens it, claude's own
// permission_prompt Notification comes later and is not told again), and a turn an API error ends
// reaches it once as "failed"; a `klaude talk` session's dialog (its claude in the PTY server) is told
// the same way. The hook only records; a detached `klaude __notify` tells.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PtySession } from '../support/pty-driver.js';
import { until } from '../support/until.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { sessionWithConversation, startTalk, stopHosts } from './talk-helpers.js';
import {
  eventKinds,
  READY,
  runResponder,
  sessions,
  startKlaude,
  submit,
  waitForDb,
  waitIdle,
} from './supervisor-helpers.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.prompt.includes('fail-77'))
      return { error: { status: 400, type: 'invalid_request_error', message: 'bad-request-77' } };
    return runResponder(r);
  },
});
let home: AgentHome;
let term: PtySession | undefined;
let talk: { home: AgentHome; term?: PtySession; id?: string } | undefined;
let receiverUrl = '';
let receiver: Server;
const received: Record<string, unknown>[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  // Bash is not allowed: a command that writes asks the person first. No claude.binary: found on PATH.
  home = fx.home({ supervisor: true, allowBash: false, binary: null, notifyUrl: receiverUrl });
});

afterEach(async () => {
  await talk?.term?.dispose();
  if (talk?.id) await stopHosts(talk.home, talk.id);
});

afterAll(async () => {
  await term?.dispose();
  await new Promise((r) => receiver?.close(r));
});

const ofKind = (k: string) => received.filter((b) => b.event === k);

describe('notifications of an interactive session (real claude)', () => {
  it('a permission dialog is told once as needs you, an API error once as failed', async () => {
    term = startKlaude(home, [], { cols: 110, rows: 40 });
    await term.waitForText(READY, { timeoutMs: 60_000 });
    await submit(term, 'run: touch asked-77.txt');
    await term.waitForText(/Do you want to proceed/, { timeoutMs: 60_000 });
    const id = sessions(home).find((s) => s.parent_id === null)!.id;

    await until('the webhook told of the dialog', () => ofKind('needs_you').length > 0, 30_000);
    expect(ofKind('needs_you')[0]).toMatchObject({
      event: 'needs_you',
      sessionId: id,
      type: 'tui',
      tool: 'Bash',
      summary: 'touch asked-77.txt',
    });
    // Claude's own permission_prompt Notification for the same dialog (~6 s later) is not a new event.
    await waitForDb(
      'claude’s permission notification',
      () => eventKinds(home, id).includes('hook.Notification'),
      30_000,
    );

    term.press('enter'); // "Yes"
    await term.waitForText('Tool output', { timeoutMs: 60_000 });
    await waitIdle(term);

    await submit(term, 'fail-77');
    await until('the webhook told of the failed turn', () => ofKind('failed').length > 0, 30_000);
    expect(ofKind('failed')[0]).toMatchObject({ event: 'failed', sessionId: id, type: 'tui' });
    expect(String(ofKind('failed')[0]!.text)).toContain('bad-request-77');
    expect(ofKind('needs_you')).toHaveLength(1);
    expect(received).toHaveLength(2);
  });

  it('a `klaude talk` session (its claude in the PTY server) is told too', async () => {
    received.length = 0;
    talk = { home: fx.home({ supervisor: true, allowBash: false, notifyUrl: receiverUrl }) };
    const { id } = await sessionWithConversation(talk.home, 'talk-notify-78');
    talk.id = id;
    talk.term = startTalk(talk.home, [id.slice(-8)]);
    await talk.term.waitForText(READY, { timeoutMs: 60_000 });
    await submit(talk.term, 'run: touch talk-asked-78.txt');
    await talk.term.waitForText(/Do you want to proceed/, { timeoutMs: 60_000 });
    await until('the webhook told of the talk dialog', () => ofKind('needs_you').length > 0, 30_000);
    expect(ofKind('needs_you')[0]).toMatchObject({ sessionId: id, tool: 'Bash', summary: 'touch talk-asked-78.txt' });
    talk.term.press('escape');
    await talk.term.waitForText(/Interrupted/, { timeoutMs: 20_000 });
    expect(received).toHaveLength(1);
  });
});
