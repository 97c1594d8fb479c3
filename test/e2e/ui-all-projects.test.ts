// `klaude ui` across projects and into PTY sessions, end to end (the built CLI under node-pty, the
// real claude against the stand-in): P shows another project's agent under its heading (and the
// needs-you group); Space peeks at a talk session's screen; m on a talk session types a line into
// its claude's prompt, and the stand-in gets it as the person's message; while `klaude talk` is
// attached to that session, the reply is refused with the holder named.
import { randomUUID } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { shortId } from '../../src/core/ids.js';
import { openDb } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { runClaude } from '../support/claude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import type { TempHome } from '../support/temp-home.js';
import { DASHBOARD } from '../ui/helpers/ui-e2e.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { READY, readDb, runResponder, startKlaude, waitForDb } from './supervisor-helpers.js';
import { sessionStatus, sessionWithConversation, startTalk, stopHosts } from './talk-helpers.js';

const fx = useAgentHomes({ responder: runResponder });
const hosts: { home: TempHome; sessionId: string }[] = [];
const terms: PtySession[] = [];
const open = (t: PtySession): PtySession => {
  terms.push(t);
  return t;
};

afterEach(async () => {
  for (const t of terms.splice(0)) await t.dispose();
  for (const h of hosts.splice(0)) await stopHosts(h.home, h.sessionId).catch(() => undefined);
});

/** A home of its own for each test; Ink must run interactive in the PTY (no CI). */
const uiHome = (allowBash: boolean): AgentHome => fx.home({ supervisor: true, allowBash, env: { CI: undefined } });

/** A second project of the same klaude home with one waiting agent (a row as the runtime leaves it). */
function otherProject(home: TempHome): { root: string; id: string } {
  const root = path.join(home.root, 'other-repo');
  mkdirSync(root);
  const real = realpathSync(root);
  const db = openDb(home.klaudeHome);
  try {
    const hash = projectHash(real);
    ensureProject(db, { hash, rootPath: real });
    const s = createSession(db, {
      projectId: hash,
      type: 'tester',
      runtime: 'claude',
      status: 'waiting',
      prompt: 'other-project-marker',
    });
    return { root: real, id: s.id };
  } finally {
    db.close();
  }
}

describe('klaude ui across projects and into talk sessions', () => {
  it("P shows the other project's agent; Space peeks; m types into a talk session's prompt, refused while attached", async () => {
    const home = uiHome(true);
    const session = await sessionWithConversation(home, 'ui-reply-marker');
    hosts.push({ home, sessionId: session.id });
    const s = shortId(session.id);
    const other = otherProject(home);

    // A talk session, left running in the PTY server.
    const talk = open(startTalk(home, [session.id.slice(-6)]));
    await talk.waitForText(READY, { timeoutMs: 45_000 });
    talk.press('ctrl-]');
    expect((await talk.exited).exitCode).toBe(0);

    const ui = open(startKlaude(home, ['ui'], { cols: 150, rows: 34 }));
    await ui.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await ui.waitForText(`screen · general ${s} · pty`, { timeoutMs: 20_000 });
    expect(ui.text()).not.toContain(shortId(other.id));

    // P: every project; the other one's waiting agent in needs you and under its heading.
    ui.write('P');
    await ui.waitForText('all projects (2)', { timeoutMs: 10_000 });
    await ui.waitForText('needs you (1)');
    await ui.waitForText(`${other.root.replace(home.home, '~')} · 1 waiting`);
    await ui.waitFor((t) => t.split(shortId(other.id)).length >= 3, 'the waiting agent on its two rows');
    // Its row is selected (needs you comes first): Enter can't check out another project's session.
    await ui.waitForText(`log · tester ${shortId(other.id)}`);
    ui.press('enter');
    await ui.waitForText(`${shortId(other.id)} is in ${other.root}: this dashboard's claude can't check it out`, {
      timeoutMs: 10_000,
    });
    ui.write('P');
    await ui.waitFor((t) => !t.includes(shortId(other.id)), 'this project only again', { timeoutMs: 10_000 });

    // Space: the talk session's last screen in a popup; Esc closes it.
    ui.write(' ');
    await ui.waitForText('peek · last screen', { timeoutMs: 10_000 });
    await ui.waitForText('Reply to: ui-reply-marker');
    ui.press('escape');
    await ui.waitFor((t) => !t.includes('peek · last screen'), 'the peek closed', { timeoutMs: 10_000 });

    // m: one line typed into its claude's prompt, Enter included.
    const before = fx.mock.mainRequests().length;
    ui.write('m');
    await ui.waitForText(`into the prompt of general ${s}`, { timeoutMs: 10_000 });
    ui.write('reply-from-the-dashboard');
    ui.press('enter');
    await ui.waitForText(`typed into ${s}'s prompt`, { timeoutMs: 20_000 });
    await waitForDb(
      'the stand-in got the reply',
      () =>
        fx.mock
          .mainRequests()
          .slice(before)
          .some((r) => r.prompt === 'reply-from-the-dashboard'),
      45_000,
    );
    await ui.waitForText('Reply to: reply-from-the-dashboard', { timeoutMs: 45_000 });

    // One writer: while `klaude talk` is attached, the reply is refused with the holder named.
    const again = open(startTalk(home, [session.id.slice(-6)]));
    await again.waitForText('Reply to: reply-from-the-dashboard', { timeoutMs: 45_000 });
    const asked = fx.mock.mainRequests().length;
    ui.write('m');
    await ui.waitForText(`into the prompt of general ${s}`, { timeoutMs: 10_000 });
    ui.write('not-typed');
    ui.press('enter');
    // The footer keeps the notice's hint whole and cuts its text to fit: how much of "(pid N)"
    // shows depends on the pid's digits, so the holder is matched without it.
    await ui.waitFor((t) => /is held by klaude talk/.test(t), 'the refusal', {
      timeoutMs: 20_000,
    });
    expect(again.text()).not.toContain('not-typed');
    expect(fx.mock.mainRequests().length).toBe(asked);
  });

  it('m on a finished agent of another project resumes it there (its conversation is found only in its own root)', async () => {
    const home = uiHome(true);
    const root = path.join(home.root, 'second-repo');
    mkdirSync(root);
    const real = realpathSync(root);
    home.trustDir(real);
    const claudeId = randomUUID();
    const r = await runClaude(['-p', 'second-project-marker', '--session-id', claudeId], { cwd: real, env: home.env });
    expect(r.code, r.stderr).toBe(0);
    const db = openDb(home.klaudeHome);
    let id: string;
    try {
      const hash = projectHash(real);
      ensureProject(db, { hash, rootPath: real });
      id = createSession(db, { projectId: hash, type: 'general', runtime: 'claude', status: 'done', prompt: 'p2' }).id;
      linkClaudeSession(db, { klaudeSessionId: id, claudeSessionId: claudeId, source: 'headless' });
    } finally {
      db.close();
    }
    hosts.push({ home, sessionId: id });

    const ui = open(startKlaude(home, ['ui', '--all'], { cols: 150, rows: 34 }));
    await ui.waitForText('all projects (', { timeoutMs: 20_000 });
    await ui.waitForText(`log · general ${shortId(id)}`, { timeoutMs: 20_000 });
    ui.write('m');
    await ui.waitForText(`to general ${shortId(id)} (done)`, { timeoutMs: 10_000 });
    ui.write('cross-project-message');
    ui.press('enter');
    await waitForDb(
      'the stand-in got the message',
      () => fx.mock.mainRequests().some((q) => q.prompt === 'cross-project-message'),
      45_000,
    );
    await waitForDb('the agent done again', () => sessionStatus(home, id) === 'done', 45_000);
    await ui.waitForText('Reply to: cross-project-message', { timeoutMs: 20_000 });
  });

  it("A allows the permission request of another project's agent, answered as the person", async () => {
    const home = uiHome(false); // no allow rule: Bash asks
    mkdirSync(path.join(home.root, 'third-repo'));
    const root = realpathSync(path.join(home.root, 'third-repo'));
    home.trustDir(root);
    const r = await home.k(['start', 'general', 'run: python3 -c "print(6*7)"', '-d', '--json'], {
      cwd: root,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
    hosts.push({ home, sessionId: id });
    await waitForDb(
      'its permission request',
      () =>
        readDb(
          home,
          (db) => db.prepare('SELECT count(*) AS n FROM approvals WHERE session_id = ?').get(id) as { n: number },
        ).n > 0,
      60_000,
    );

    const ui = open(startKlaude(home, ['ui', '--all'], { cols: 150, rows: 34 }));
    // Needs you comes first: its row is selected, its request pinned above its log.
    await ui.waitForText(`log · general ${shortId(id)}`, { timeoutMs: 20_000 });
    await ui.waitForText(/\? needs approval · request \d+ · Bash/, { timeoutMs: 20_000 });
    ui.write('A');
    await ui.waitForText('Tool output: 42', { timeoutMs: 45_000 });
    await ui.waitForText('allowed by person in the dashboard', { timeoutMs: 20_000 });
    await waitForDb('the agent done', () => sessionStatus(home, id) === 'done', 45_000);
  });

  it('a talk session of another project: its live screen in the preview, Space peeks, m replies, Enter refuses', async () => {
    const home = uiHome(true);
    const session = await sessionWithConversation(home, 'far-talk-marker');
    hosts.push({ home, sessionId: session.id });
    const s = shortId(session.id);
    const talk = open(startTalk(home, [session.id.slice(-6)]));
    await talk.waitForText(READY, { timeoutMs: 45_000 });
    talk.press('ctrl-]');
    await talk.exited;

    // The dashboard runs in another project; the talk session is the last row (its project comes second).
    const here = otherProject(home);
    const ui = open(
      spawnPty(process.execPath, [KLAUDE_CLI, 'ui', '--all'], { cwd: here.root, env: home.env, cols: 150, rows: 34 }),
    );
    await ui.waitForText('all projects (2)', { timeoutMs: 20_000 });
    ui.write('G');
    await ui.waitForText(`screen · general ${s} · pty`, { timeoutMs: 20_000 });
    // Connected to its PTY host (the socket of the session's own project): live, with its screen.
    await ui.waitForText(/live · \d+×\d+ · t talks, v log/, { timeoutMs: 20_000 });
    await ui.waitForText('Reply to: far-talk-marker', { timeoutMs: 20_000 });
    ui.press('enter');
    await ui.waitForText(`${s} is in ${home.projectDir}: this dashboard's claude can't check it out`, {
      timeoutMs: 10_000,
    });
    ui.write(' ');
    await ui.waitForText('peek · last screen', { timeoutMs: 10_000 });
    ui.press('escape');
    await ui.waitFor((t) => !t.includes('peek · last screen'), 'the peek closed', { timeoutMs: 10_000 });
    ui.write('m');
    await ui.waitForText(`into the prompt of general ${s}`, { timeoutMs: 10_000 });
    ui.write('far-reply');
    ui.press('enter');
    await waitForDb('the stand-in got it', () => fx.mock.mainRequests().some((r) => r.prompt === 'far-reply'), 45_000);
    await ui.waitForText('Reply to: far-reply', { timeoutMs: 45_000 });
  });
});
