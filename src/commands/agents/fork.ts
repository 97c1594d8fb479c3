/** `klaude fork <id> ["prompt"] [-d] [--json]`: a new agent on a fork of that session's Claude conversation. */
import { shortId } from '../../core/ids.js';
import { openDb } from '../../db/client.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { getSession } from '../../db/repos/sessions.js';
import { safeJson } from '../../lib/escapes.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { forkPlace, forkRequest } from '../../agent-ops/fork.js';
import { startAgents } from '../../agent-ops/start.js';
import { klaudeHome } from '../../config/paths.js';
import { followStarted } from './start.js';
import type { SessionRow } from '../../db/repos/sessions.js';
import type { CommandContext } from '../cli/types.js';
import { zoneOf } from '../../core/zone.js';
import { forkInZone } from '../../zones/zone-start.js';

/** ` in worktree <path> (branch <b>), with N uncommitted files of its origin's`: a fork of a worktree agent. */
function worktreeNote(s: SessionRow): string {
  if (!s.worktreePath) return '';
  const n = (s.metadata as { carried?: unknown } | null)?.carried;
  const carried =
    typeof n === 'number' && n > 0 ? `, with its origin's ${n} uncommitted file${n === 1 ? '' : 's'}` : '';
  return ` in worktree ${s.worktreePath} (branch ${s.worktreeBranch})${carried}`;
}

export async function run(ctx: CommandContext): Promise<number> {
  const [input, prompt] = ctx.input as [string, string | undefined];
  const found = openDb(klaudeHome(ctx.env));
  let req;
  let origin: SessionRow;
  let projectRoot: string;
  try {
    origin = resolveSession(found, input);
    const place = forkPlace(found, origin);
    projectRoot = place.projectRoot;
    req = forkRequest(origin, prompt, place.cwd);
  } finally {
    found.close();
  }
  // The origin's project, whichever directory the command runs in.
  const svc = openAgentServices({ env: ctx.env, cwd: projectRoot });
  try {
    const zone = zoneOf(origin);
    // A zone's agent is forked over there, where its conversation and files are.
    const out = zone ? await forkInZone(svc, origin, prompt) : await startAgents(svc, req);
    const forked = out.sessions[0]!;
    const from = req.forkOf!.sessionId;
    if (ctx.flags.json === true) {
      const s = getSession(svc.db, forked.id) ?? forked;
      const row = { id: s.id, shortId: shortId(s.id), type: s.type, status: s.status, forkedFrom: from };
      const wt = s.worktreePath ? { worktreePath: s.worktreePath, worktreeBranch: s.worktreeBranch } : {};
      ctx.stdout.write(`${safeJson({ ...row, nativeSessionId: s.nativeSessionId, parentId: s.parentId, ...wt })}\n`);
      return 0;
    }
    const where = zone ? ` in zone ${zone.name}` : worktreeNote(forked);
    ctx.stdout.write(`forked ${shortId(forked.id)} (${forked.type}, claude) from ${shortId(from)}${where}\n`);
    if (ctx.flags.detach === true) return 0;
    return await followStarted(ctx, svc, out.sessions);
  } finally {
    await closeAgentServices(svc);
  }
}
