// Shared helpers of the `klaude talk` end-to-end tests (their homes come from agent-home.ts): a
// session with a real (headless) Claude conversation, the built klaude under the PTY driver, and
// read-only looks at the PTY host's records.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { expect } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { ptySocketPath } from '../../src/ptyd/socket-path.js';
import { runClaude } from '../support/claude-bin.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import type { TempHome } from '../support/temp-home.js';
import { readDb, waitForDb } from './supervisor-helpers.js';

/** A klaude session (an agent that finished) whose Claude conversation holds one exchange with `marker`. */
export async function sessionWithConversation(
  home: TempHome,
  marker: string,
): Promise<{ id: string; claudeId: string }> {
  const claudeId = randomUUID();
  const r = await runClaude(['-p', marker, '--session-id', claudeId], { cwd: home.projectDir, env: home.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain(`Reply to: ${marker}`);
  const db = openDb(home.klaudeHome);
  try {
    const hash = projectHash(home.projectDir);
    ensureProject(db, { hash, rootPath: home.projectDir });
    const s = createSession(db, {
      projectId: hash,
      type: 'general',
      runtime: 'claude',
      status: 'done',
      prompt: marker,
    });
    linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: claudeId, source: 'headless' });
    return { id: s.id, claudeId };
  } finally {
    db.close();
  }
}

export function startTalk(home: TempHome, args: string[], size = { cols: 100, rows: 30 }): PtySession {
  return spawnPty(process.execPath, [KLAUDE_CLI, 'talk', ...args], { cwd: home.projectDir, env: home.env, ...size });
}

export function socketOf(home: TempHome, sessionId: string): string {
  return ptySocketPath(home.klaudeHome, projectHash(home.projectDir), sessionId, home.env);
}

export interface PtyRow {
  id: number;
  pid: number;
  exited_at: number | null;
  exit_code: number | null;
  signal: string | null;
  is_current: number;
}

export const ptyRows = (home: TempHome, sessionId: string): PtyRow[] =>
  readDb(
    home,
    (db) =>
      db
        .prepare("SELECT * FROM runtime_process WHERE kind = 'pty' AND klaude_session_id = ? ORDER BY id")
        .all(sessionId) as PtyRow[],
  );

/** The claude pid of the newest PTY start of the session (from its `pty.start` event). */
export const claudePidOf = (home: TempHome, sessionId: string): number =>
  readDb(home, (db) => {
    const row = db
      .prepare("SELECT payload FROM events WHERE klaude_session_id = ? AND kind = 'pty.start' ORDER BY id DESC LIMIT 1")
      .get(sessionId) as { payload: string } | undefined;
    if (!row) throw new Error('no pty.start event');
    return (JSON.parse(row.payload) as { pid: number }).pid;
  });

export const sessionStatus = (home: TempHome, sessionId: string): string =>
  readDb(
    home,
    (db) => (db.prepare('SELECT status FROM sessions WHERE id = ?').get(sessionId) as { status: string }).status,
  );

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const socketExists = (home: TempHome, sessionId: string): boolean => existsSync(socketOf(home, sessionId));

/** A line of `─` exactly `cols` wide: claude draws its prompt's rules across the full width. */
export const ruleOf = (cols: number): RegExp => new RegExp(`^─{${cols}}$`, 'm');

/**
 * Stop the PTY server of the session's live rows (SIGTERM stops every claude it hosts: each test has
 * its own KLAUDE_HOME, so its own server) and wait for it and the session's claude to go.
 */
export async function stopHosts(home: TempHome, sessionId: string): Promise<void> {
  const pids = ptyRows(home, sessionId)
    .filter((r) => r.exited_at === null && alive(r.pid))
    .map((r) => r.pid);
  let claude: number | null = null;
  try {
    claude = claudePidOf(home, sessionId);
  } catch {
    /* never started */
  }
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  const all = claude ? [...pids, claude] : pids;
  await waitForDb('the PTY server and its claude gone', () => all.every((p) => !alive(p)), 15_000);
}
