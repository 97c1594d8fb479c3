// Checkout with the real claude: from Claude's Bash tool `klaude checkout <child>` swaps the
// foreground to the child's own conversation (--resume), `klaude checkout` goes back to the
// parent; the state machine refuses a second switch, names a target with no Claude session,
// and comes back from a relaunch that dies at once.
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { controlRequest } from '../../src/control/client.js';
import { openDb } from '../../src/db/client.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { claudeTranscriptPath } from '../../src/claude/transcript.js';
import { shortId } from '../../src/core/ids.js';
import { claudeBin, runClaude } from '../support/claude-bin.js';
import { runKlaude } from '../support/klaude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import {
  instances,
  links,
  processes,
  READY,
  runResponder,
  sessions,
  startKlaude,
  submit,
  waitBelow,
  waitForDb,
  type ProcessRow,
} from './supervisor-helpers.js';

const MODEL = 'claude-checkout-model';
const BROKEN = randomUUID();
const fx = useAgentHomes({ responder: runResponder });
let home: AgentHome;
let term: PtySession;
let rootId: string;
let socket: string;

beforeAll(() => {
  home = fx.home({ supervisor: true });
  // claude, except that resuming BROKEN dies at once, the way a missing conversation does.
  const wrapper = join(home.root, 'claude-wrapper');
  writeFileSync(
    wrapper,
    `#!/bin/sh\ncase " $* " in *" ${BROKEN} "*) echo "wrapper: no conversation ${BROKEN}" >&2; exit 1;; esac\nexec '${claudeBin()}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  home.configure({ binary: wrapper });
});

/** A headless Claude conversation in the project, as an agent runtime would leave it. */
async function headlessConversation(marker: string): Promise<string> {
  const id = randomUUID();
  const r = await runClaude(['-p', marker, '--session-id', id], { cwd: home.projectDir, env: home.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain(`Reply to: ${marker}`);
  return id;
}

/** A child session of the root (as `klaude start` would make), optionally linked to a Claude id. */
function childSession(claudeId?: string, type = 'general'): string {
  const db = openDb(home.klaudeHome);
  try {
    const s = createSession(db, { projectId: sessions(home)[0]!.project_id, parentId: rootId, type, status: 'idle' });
    if (claudeId) linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: claudeId, source: 'headless' });
    return s.id;
  } finally {
    db.close();
  }
}

function link(sessionId: string, claudeId: string): void {
  const db = openDb(home.klaudeHome);
  try {
    linkClaudeSession(db, { klaudeSessionId: sessionId, claudeSessionId: claudeId, source: 'headless' });
  } finally {
    db.close();
  }
}

const status = () => controlRequest(socket, 'status', {});
const currentClaude = () => processes(home).filter((p) => p.exited_at === null);

describe('klaude checkout', () => {
  it('switches to a child’s conversation from Claude’s Bash tool, and back with no id', async () => {
    const childClaude = await headlessConversation('child-marker-41');
    term = home.own(startKlaude(home, ['--', '--model', MODEL], { cols: 110, rows: 60 }));
    await term.waitForText(READY, { timeoutMs: 45_000 });
    rootId = sessions(home)[0]!.id;
    socket = instances(home)[0]!.socket_path;
    await submit(term, 'root-marker-17');
    await term.waitForText('Reply to: root-marker-17', { timeoutMs: 45_000 });
    const rootClaude = sessions(home)[0]!.native_session_id!;
    const child = childSession(childClaude);

    // As lists show it: a 4-character prefix of the displayed id.
    const typed = shortId(child).slice(0, 4);
    await submit(term, `run: klaude checkout ${typed}`);
    // A cleared screen, klaude's one line, then the child's own conversation resumed below it.
    const switched = `klaude: switched to ${shortId(child)} (general) — \`klaude checkout\` to go back`;
    await waitBelow(term, switched, ['Reply to: child-marker-41', READY]);
    const screen = term.text();
    expect(screen).not.toContain('root-marker-17'); // the old conversation is off the visible screen
    expect(screen).not.toContain(`klaude checkout ${typed}`);
    expect(screen).not.toMatch(/claude --resume/);
    await waitForDb('the child’s SessionStart(resume)', () =>
      links(home).find((l) => l.claude_session_id === childClaude && l.source === 'resume' && l.ended_at === null),
    );
    expect(await status()).toMatchObject({ foregroundSessionId: child, rootSessionId: rootId, switching: false });
    let procs = processes(home);
    expect(procs).toHaveLength(2);
    expect(procs[0]).toMatchObject({ klaude_session_id: rootId, is_current: 0 });
    // Ended cleanly by the SIGTERM (exit 143), never SIGKILLed: 2.1.332 first stops the running
    // `klaude checkout` tool and runs SessionEnd, which takes longer than 2.1.197's immediate exit.
    const byTerm = (p: ProcessRow | undefined) => p?.exit_code === 143 && p?.signal === null;
    expect(byTerm(procs[0]), JSON.stringify(procs[0])).toBe(true);
    expect(procs[1]).toMatchObject({ klaude_session_id: child, exited_at: null, is_current: 1 });
    // The root's Claude session ended (SessionEnd on SIGTERM) and stays resumable.
    expect(links(home).find((l) => l.claude_session_id === rootClaude)).toMatchObject({ end_reason: 'other' });

    // Talking to the child continues its conversation, with the passed-through --model.
    await submit(term, 'hello child');
    await term.waitForText('Reply to: hello child', { timeoutMs: 45_000 });
    const req = fx.mock.mainRequests().at(-1)!;
    expect(req.body.model).toBe(MODEL);
    expect(JSON.stringify(req.body.messages)).toContain('child-marker-41');
    // The relaunched Claude was told why it is here (SessionStart additionalContext).
    expect(JSON.stringify(req.body.messages)).toContain(
      `You were opened by klaude checkout from session ${shortId(rootId)} (claude)`,
    );
    expect(sessions(home).find((s) => s.id === child)).toMatchObject({
      native_session_id: childClaude,
      parent_id: rootId,
    });

    // `klaude checkout` with no id, from inside the child: back to the parent.
    await submit(term, 'run: klaude checkout');
    await waitBelow(term, `klaude: switched to ${shortId(rootId)} (claude) — \`klaude checkout\` to go back`, [
      'Reply to: root-marker-17',
      READY,
    ]);
    expect(term.text()).not.toContain('hello child');
    await waitForDb('the root’s SessionStart(resume)', () =>
      links(home).find((l) => l.claude_session_id === rootClaude && l.source === 'resume' && l.ended_at === null),
    );
    expect(await status()).toMatchObject({ foregroundSessionId: rootId });
    procs = processes(home);
    expect(procs).toHaveLength(3);
    expect(procs[1]).toMatchObject({ klaude_session_id: child });
    expect(byTerm(procs[1])).toBe(true);
    expect(procs[2]).toMatchObject({ klaude_session_id: rootId, exited_at: null });
    expect(sessions(home).filter((s) => s.parent_id === null)).toHaveLength(1); // the tree is untouched
    await submit(term, 'back in the root?');
    await term.waitForText('Reply to: back in the root?', { timeoutMs: 45_000 });
    const history = JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages);
    expect(history).toContain('root-marker-17');
    expect(history).not.toContain('child-marker-41');
  });

  it('waits for a starting target’s Claude id and refuses a second switch meanwhile', async () => {
    const lateClaude = await headlessConversation('late-marker-23');
    const late = childSession(undefined, 'explore');
    const before = currentClaude()[0]!;

    const first = controlRequest(socket, 'checkout', { target: late, timeoutMs: 30_000 }, { timeoutMs: 45_000 });
    await waitForDb('the switch to start', async () => (await status()).switching);
    await expect(controlRequest(socket, 'checkout', { target: rootId })).rejects.toMatchObject({
      code: 'E_SWITCH_IN_PROGRESS',
    });
    expect(currentClaude()[0]!.pid).toBe(before.pid); // nothing stopped yet: still waiting for the id

    link(late, lateClaude); // the agent's Claude session shows up
    const res = await first;
    expect(res).toMatchObject({ sessionId: late, claudeSessionId: lateClaude });
    await waitBelow(term, `klaude: switched to ${shortId(late)} (explore)`, ['Reply to: late-marker-23', READY]);
    expect(currentClaude()).toMatchObject([{ klaude_session_id: late, pid: res.pid }]);
  });

  it('names a target that has no Claude session, leaving the foreground alone', async () => {
    const empty = childSession();
    const before = currentClaude()[0]!;
    const r = await runKlaude(['checkout', empty.slice(-6), '--timeout', '1'], { env: home.env, cwd: home.projectDir });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^klaude: .* has no Claude session yet \[E_SWITCH_TARGET_MISSING\] — hint: .*--timeout/);
    expect(currentClaude()).toEqual([before]);
    expect((await status()).switching).toBe(false);
  });

  it('retries a relaunch that dies at once, then restores the previous session and says why', async () => {
    // Looks resumable (a transcript exists), but claude dies when asked to resume it.
    const broken = childSession(BROKEN);
    const transcript = claudeTranscriptPath(home.projectDir, BROKEN, home.env);
    mkdirSync(dirname(transcript), { recursive: true });
    writeFileSync(transcript, '');
    const previous = currentClaude()[0]!;
    const rowsBefore = processes(home).length;

    const res = await controlRequest(socket, 'checkout', { target: broken }, { timeoutMs: 30_000 });
    expect(res.sessionId).toBe(broken); // answered once the relaunch spawned

    // The diagnostics, then the previous conversation back below them.
    await waitBelow(term, `could not switch to ${shortId(broken)}`, ['Reply to: late-marker-23', READY]);
    const raw = term.rawOutput();
    expect(raw).toContain(`wrapper: no conversation ${BROKEN}`);
    expect(raw).toMatch(
      new RegExp(
        `klaude: could not switch to ${shortId(broken)} \\(claude --resume ${BROKEN}\\): claude exited with code 1 right after starting, twice \\[E_SWITCH_FAILED\\]`,
      ),
    );
    expect(raw).toContain(`klaude: returning to ${shortId(previous.klaude_session_id)}`);

    const rows = processes(home).slice(rowsBefore);
    expect(rows).toMatchObject([
      { klaude_session_id: broken, exit_code: 1 },
      { klaude_session_id: broken, exit_code: 1 },
      { klaude_session_id: previous.klaude_session_id, exited_at: null, is_current: 1 },
    ]);
    expect(await status()).toMatchObject({ foregroundSessionId: previous.klaude_session_id, switching: false });
    const log = readFileSync(join(home.klaudeHome, 'klaude.log'), 'utf8');
    expect(log).toContain('relaunch died at once; retrying');
    expect(log).toContain('switch failed; restoring previous session');

    // Still a working supervisor: exit ends it with claude's code.
    await submit(term, '/exit');
    expect((await term.exited).exitCode).toBe(0);
    // klaude's own resume hint comes after claude's (which would resume without klaude's hooks).
    const out = term.rawOutput();
    const claudeLine = Math.max(...[...out.matchAll(/(?<!k)claude --resume [0-9a-f-]{36}/g)].map((m) => m.index));
    expect(claudeLine).toBeGreaterThan(0);
    expect(
      out.lastIndexOf(
        `klaude: resume this session with klaude: klaude --resume ${shortId(previous.klaude_session_id)}`,
      ),
    ).toBeGreaterThan(claudeLine);
    expect(instances(home)).toMatchObject([{ status: 'exited', exit_code: 0 }]);
  });
});
