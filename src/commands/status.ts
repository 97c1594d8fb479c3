import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { controlRequest } from '../control/client.js';
import { findLiveSupervisors } from '../control/discovery.js';
import type { StatusResult } from '../control/protocol.js';
import { shortId } from '../core/ids.js';
import { projectPendingApprovals, type ApprovalRow } from '../db/repos/approvals.js';
import { openFastDb } from '../db/fast.js';
import { liveProcessesOfProject, sessionTypes } from '../db/repos/listing.js';
import { safeText } from '../lib/escapes.js';
import { age, table } from '../lib/format.js';
import type { CommandContext } from './types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  const root = projectRoot(ctx.cwd);
  const live = await findLiveSupervisors(home, projectHash(root), { env: ctx.env });
  const statuses = (
    await Promise.all(
      live.map((l) => controlRequest(l.socketPath, 'status', {}, { timeoutMs: 2000 }).catch(() => null)),
    )
  ).filter((s): s is StatusResult => s !== null);
  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
    return 0;
  }
  const waiting = pendingOf(home, projectHash(root));
  const talk = talkSessions(home, projectHash(root));
  if (statuses.length === 0) {
    ctx.stdout.write(`no klaude running in ${root}\n${waiting}${talk}`);
    return 0;
  }
  const rows = [['INSTANCE', 'PID', 'MODE', 'UP', 'ROOT', 'FOREGROUND', 'CLAUDE PID']];
  for (const s of statuses) {
    rows.push([
      shortId(s.instanceId),
      String(s.pid),
      s.mode,
      age(Date.parse(s.startedAt)),
      s.rootSessionId ? shortId(s.rootSessionId) : '-',
      s.switching ? 'switching…' : s.foregroundSessionId ? shortId(s.foregroundSessionId) : '-',
      s.foregroundPid ? String(s.foregroundPid) : '-',
    ]);
  }
  ctx.stdout.write(`project ${root}\n${table(rows)}${waiting}${talk}`);
  return 0;
}

/** Agents waiting for a permission answer, one line each ('' when none). */
function pendingOf(home: string, hash: string): string {
  const db = openFastDb(home);
  if (!db) return '';
  let rows: ApprovalRow[];
  try {
    rows = projectPendingApprovals(db, hash);
  } finally {
    db.close();
  }
  if (rows.length === 0) return '';
  const lines = rows.map(
    (r) =>
      `  ${shortId(r.sessionId)} request ${r.id}  ${safeText(`${r.toolName}: ${r.summary}`)}  (klaude approve|deny ${shortId(r.sessionId)})`,
  );
  return `needs you — permission requests:\n${lines.join('\n')}\n`;
}

/** Sessions running in the PTY server (`klaude talk`): they run without any supervisor. */
function talkSessions(home: string, hash: string): string {
  const db = openFastDb(home);
  if (!db) return '';
  try {
    const pty = [...liveProcessesOfProject(db, hash)].filter(([, p]) => p.pty !== undefined);
    if (pty.length === 0) return '';
    const types = sessionTypes(
      db,
      pty.map(([id]) => id),
    );
    const list = pty.map(
      ([id, p]) => `${shortId(id)} (${types.get(id) === 'tui' ? 'claude' : (types.get(id) ?? '?')}, pid ${p.pty})`,
    );
    return `talk sessions (klaude talk <id> attaches): ${list.join(', ')}\n`;
  } finally {
    db.close();
  }
}
