// Told outside the terminal (config notify.*), with the real claude against the Messages-API
// stand-in: an agent of project B asks for a Bash command no setting allows while no klaude is
// open anywhere; its runtime tells a local webhook receiver once and the desktop notifier (a
// notify-send stand-in on PATH) once. Approved, it ends done: told once more, never twice.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInTerminal } from '../support/terminal-run.js';
import { until } from '../support/until.js';
import { useAgentHomes } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult) return { text: `Tool said: ${r.toolResults.map((t) => t.content).join(' ')}` };
    if (r.prompt.startsWith('run: '))
      return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: 'Running it.' };
    return { text: `Reply to: ${r.prompt}` };
  },
});
let receiver: Server;
let receiverUrl = '';
const received: { path: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(body) as Record<string, unknown> });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterEach(() => {
  received.length = 0;
});

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
});

const CMD = 'python3 -c "print(6*7)"';

describe('notifications (real claude)', () => {
  it('a waiting agent in project B is told once to the webhook and once to the desktop, with nothing open', async () => {
    // The desktop is told here (notify.desktop on), and the webhook.
    const h = fx.home({ prefix: 'klaude-notify-', desktop: true, notifyUrl: receiverUrl });
    // The desktop notifier's stand-in: records each call's arguments, one line per call.
    const bin = join(h.root, 'bin');
    const calls = join(h.root, 'notify-send.calls');
    mkdirSync(bin);
    writeFileSync(join(bin, 'notify-send'), `#!/bin/sh\nprintf '%s|' "$@" >> '${calls}'\necho >> '${calls}'\n`);
    chmodSync(join(bin, 'notify-send'), 0o755);
    const env = { ...h.env, PATH: `${bin}:${h.env.PATH}` };
    const projectB = join(h.root, 'project-b');
    mkdirSync(projectB);
    h.trustDir(projectB);

    const started = await h.k(['start', 'general', `run: ${CMD}`, '--detach', '--json'], {
      env,
      cwd: projectB,
      timeoutMs: 60_000,
    });
    expect(started.stderr).toBe('');
    const id = (JSON.parse(started.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;

    const ofKind = (k: string) => received.filter((r) => r.body.event === k);
    await until('the webhook told of the waiting agent', () => ofKind('needs_you').length > 0, 60_000);
    expect(ofKind('needs_you')[0]).toMatchObject({
      path: '/hook',
      body: {
        event: 'needs_you',
        sessionId: id,
        type: 'general',
        project: 'project-b',
        projectRoot: projectB,
        tool: 'Bash',
        summary: CMD,
      },
    });
    const desktopCalls = (): string[] =>
      existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean) : [];
    await until('the desktop notifier called', () => desktopCalls().length > 0, 20_000);
    expect(desktopCalls()[0]).toContain(`needs you|project-b · run: ${CMD} · Bash: ${CMD}|`);

    // Answered, it runs to its end: told once more (done), the waiting never again.
    const ok = await runInTerminal(['approve', id.slice(-8)], { env, cwd: projectB, timeoutMs: 60_000 });
    expect(ok.code).toBe(0);
    await until('the webhook told of the end', () => ofKind('done').length > 0, 60_000);
    await until('the desktop told of the end', () => desktopCalls().length >= 2, 20_000);
    expect(ofKind('needs_you')).toHaveLength(1);
    expect(ofKind('done')).toHaveLength(1);
    expect(received).toHaveLength(2);
    expect(desktopCalls()).toHaveLength(2);
    expect(desktopCalls()[1]).toContain('done|');
  });
});
