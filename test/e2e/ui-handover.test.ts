// The hand-over with the real claude: Enter in the dashboard gives the terminal to
// `claude --resume` on the selected session (its screen shows the conversation), `klaude checkout`
// from that claude's Bash tool switches sessions without the dashboard in between, and claude
// exiting brings the dashboard back where it was. `n` opens a fresh claude the same way.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { projectHash } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { createSession, listSessions } from '../../src/db/repos/sessions.js';
import { claudeAtLeast, runClaude } from '../support/claude-bin.js';
import { runKlaude } from '../support/klaude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import { DASHBOARD, startUi, uiDemoHome, type UiDemoHome } from '../ui/helpers/ui-e2e.js';
import { useAgentHomes } from './agent-home.js';
import { READY, runResponder, submit, waitIdle } from './supervisor-helpers.js';

/** The screen claude draws in: the alternate one since 2.1.332 (docs/claude-versions.md). */
const CLAUDE_SCREEN = claudeAtLeast('2.1.332') ? 'alternate' : 'normal';

const fx = useAgentHomes({ responder: runResponder });
let demo: UiDemoHome;
let term: PtySession | undefined;

beforeAll(() => {
  demo = uiDemoHome(fx);
});

/** A Claude conversation in the project (headless), linked to a new klaude session. */
async function conversation(marker: string, s: { type: string; parentId?: string }): Promise<string> {
  const claudeId = randomUUID();
  const r = await runClaude(['-p', marker, '--session-id', claudeId], {
    cwd: demo.home.projectDir,
    env: demo.home.env,
  });
  expect(r.code, r.stderr).toBe(0);
  const db = openDb(demo.home.klaudeHome);
  try {
    const row = createSession(db, {
      projectId: projectHash(demo.home.projectDir),
      type: s.type,
      parentId: s.parentId ?? null,
      status: s.type === 'tui' ? 'done' : 'idle',
    });
    linkClaudeSession(db, {
      klaudeSessionId: row.id,
      claudeSessionId: claudeId,
      source: s.type === 'tui' ? 'startup' : 'headless',
    });
    return row.id;
  } finally {
    db.close();
  }
}

describe('klaude ui hand-over', () => {
  it('Enter resumes the session in claude; checkout switches inside claude; exiting claude brings the dashboard back', async () => {
    const root = await conversation('handover-root-marker', { type: 'tui' });
    const child = await conversation('handover-child-marker', { type: 'general', parentId: root });

    term = demo.home.own(startUi(demo, { cols: 110, rows: 40 }));
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await term.waitForText(`log · claude ${shortId(root)}`); // the newest root is selected
    term.press('enter');

    // claude owns the terminal: its screen (2.1.332 draws in the alternate one), the resumed conversation on it.
    await term.waitForText('Reply to: handover-root-marker', { timeoutMs: 45_000 });
    await term.waitForText(READY, { timeoutMs: 45_000 });
    expect(term.bufferType()).toBe(CLAUDE_SCREEN);
    expect(term.text()).not.toContain('╭─ sessions');

    // Keys typed now are claude's (stdin was released), and checkout from its Bash tool switches
    // to the child's conversation without showing the dashboard in between.
    await submit(term, `run: klaude checkout ${shortId(child)}`);
    await term.waitForText('Reply to: handover-child-marker', { timeoutMs: 45_000 });
    await waitIdle(term);
    expect(term.bufferType()).toBe(CLAUDE_SCREEN);

    // Exiting claude: the dashboard is back, on the session claude was in, with its state.
    await submit(term, '/exit');
    await term.waitForText(`back from ${shortId(child)}`, { timeoutMs: 20_000 });
    await term.waitForText(`log · general ${shortId(child)}`);
    expect(term.bufferType()).toBe('alternate');
    expect(term.cursorVisible()).toBe(false);
    expect(term.hasExited()).toBe(false);

    // The dashboard reads keys again: move, then n opens a fresh claude.
    term.press('up');
    await term.waitForText(`log · claude ${shortId(root)}`);
    term.write('n');
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await waitIdle(term);
    await submit(term, 'fresh-session-marker');
    await term.waitForText('Reply to: fresh-session-marker', { timeoutMs: 45_000 });
    await submit(term, '/exit');
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });

    const db = openDb(demo.home.klaudeHome);
    let fresh;
    try {
      const all = listSessions(db, { projectId: projectHash(demo.home.projectDir) });
      fresh = all.filter((x) => x.type === 'tui').sort((a, b) => b.createdAt - a.createdAt)[0]!;
      expect(fresh.id).not.toBe(root);
      expect(fresh.nativeSessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(fresh.status).toBe('done');
    } finally {
      db.close();
    }
    await term.waitForText(`log · claude ${shortId(fresh.id)}`);

    // `klaude checkout <id>` from another shell, while the dashboard shows: it opens that session here.
    const r = await runKlaude(['checkout', shortId(root)], {
      cwd: demo.home.projectDir,
      env: demo.home.env,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`checked out ${shortId(root)}`);
    await term.waitForText('Reply to: handover-root-marker', { timeoutMs: 45_000 });
    expect(term.bufferType()).toBe(CLAUDE_SCREEN);
    await submit(term, '/exit');
    await term.waitForText(`back from ${shortId(root)}`, { timeoutMs: 20_000 });

    term.write('q');
    await term.waitForText('agents are still working');
    term.press('ctrl-c'); // Ctrl-C twice quits
    expect((await term.exited).exitCode).toBe(0);
    expect(term.bufferType()).toBe('normal');
    expect(term.cursorVisible()).toBe(true);
  });
});
