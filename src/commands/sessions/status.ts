import { klaudeHome, projectHash, projectRoot } from '../../config/paths.js';
import { controlRequest } from '../../control/client.js';
import { findLiveSupervisors } from '../../control/discovery.js';
import type { StatusResult } from '../../control/protocol.js';
import { shortId } from '../../core/ids.js';
import { projectPendingApprovals, type ApprovalRow } from '../../db/repos/approvals.js';
import { openFastDb } from '../../db/fast.js';
import { liveProcessesOfProject, projectsWithSessions, sessionTypes } from '../../db/repos/listing.js';
import { safeText } from '../../lib/escapes.js';
import { age, table } from '../../lib/format.js';
import type { CommandContext } from '../cli/types.js';
import { subtreeIds } from '../../db/repos/subtree.js';
import { SCOPE_ENV } from '../../sandbox/channel-paths.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  if (ctx.flags.projects === true) return everyProject(ctx, home);
  const root = projectRoot(ctx.cwd);
  const statuses = await supervisorsOf(ctx, home, projectHash(root));
  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
    return 0;
  }
  ctx.stdout.write(projectStatus(home, root, projectHash(root), statuses, ctx.env[SCOPE_ENV] || null));
  return 0;
}

/** `--projects`: the same for every project of this home that has sessions, one block each. */
async function everyProject(ctx: CommandContext, home: string): Promise<number> {
  const db = openFastDb(home);
  const projects = db ? projectsWithSessions(db) : [];
  db?.close();
  const blocks: { root: string; supervisors: StatusResult[] }[] = [];
  for (const p of projects) blocks.push({ root: p.rootPath, supervisors: await supervisorsOf(ctx, home, p.id) });
  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify({ projects: blocks }, null, 2)}\n`);
    return 0;
  }
  if (blocks.length === 0) {
    ctx.stdout.write('no sessions in any project of this klaude home\n');
    return 0;
  }
  const text = blocks.map((b, i) => projectStatus(home, b.root, projects[i]!.id, b.supervisors)).join('\n');
  ctx.stdout.write(text);
  return 0;
}

async function supervisorsOf(ctx: CommandContext, home: string, hash: string): Promise<StatusResult[]> {
  const live = await findLiveSupervisors(home, hash, { env: ctx.env });
  return (
    await Promise.all(
      live.map((l) => controlRequest(l.socketPath, 'status', {}, { timeoutMs: 2000 }).catch(() => null)),
    )
  ).filter((s): s is StatusResult => s !== null);
}

/** `scope`: an agent's klaude (commands/agents/agent-scope.ts) sees its own subtree's requests, and no talk sessions. */
function projectStatus(
  home: string,
  root: string,
  hash: string,
  statuses: StatusResult[],
  scope: string | null = null,
): string {
  const waiting = pendingOf(home, hash, scope);
  const talk = scope ? '' : talkSessions(home, hash);
  if (statuses.length === 0) return `no klaude running in ${root}\n${waiting}${talk}`;
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
  return `project ${root}\n${table(rows)}${waiting}${talk}`;
}

/** Agents waiting for a permission answer, one line each ('' when none). */
function pendingOf(home: string, hash: string, scope: string | null): string {
  const db = openFastDb(home);
  if (!db) return '';
  let rows: ApprovalRow[];
  try {
    rows = projectPendingApprovals(db, hash);
    if (scope) {
      const mine = subtreeIds(db, scope);
      rows = rows.filter((r) => mine.has(r.sessionId));
    }
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
