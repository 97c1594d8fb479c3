/**
 * `klaude start --zone <name>`: agents whose runtime runs on the zone's machine (docs/zones.md).
 * Each gets its mirror row here first — its id is the id over there too, so a start sent again
 * after a dropped link finds the first — then the zone's link asks the zone to start it in a
 * worktree of its clone, from this machine's HEAD. Its log here fills as the zone's log grows.
 */
import path from 'node:path';
import { setBudget } from '../db/repos/budgets.js';
import { createSession, getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { addEvent } from '../db/repos/events.js';
import { sessionLogPath } from '../config/paths.js';
import { appendSessionEvent, touchSessionLog } from '../logs/writer.js';
import { gitTopLevel, headCommit } from '../git/exec.js';
import { shortId } from '../core/ids.js';
import { KlaudeError } from '../lib/errors.js';
import { RUNTIMES, type ZoneSpec } from '../config/schema.js';
import type { AgentServices } from '../agent-ops/context.js';
import { MAX_COUNT, type StartOutcome } from '../agent-ops/start.js';
import { sharedContext } from '../agent-ops/share.js';
import { askZone, inZone } from '../zone-client/ask-link.js';
import { forkRequest } from '../agent-ops/fork.js';
import { zoneOf } from '../core/zone.js';
import type { ZoneStartRequest } from '../zone-client/link-protocol.js';
import type { StartRequest } from '../control/protocol.js';

/** The zone's config, or the error that says how to add it. */
export function zoneSpec(svc: Pick<AgentServices, 'config'>, zone: string): ZoneSpec {
  const spec = svc.config.zones[zone];
  if (spec) return spec;
  const known = Object.keys(svc.config.zones);
  throw new KlaudeError('E_ZONE_NOT_FOUND', `no zone '${zone}' in the config`, {
    hint: known.length
      ? `zones: ${known.join(', ')}; klaude zone add <name> <user@host> <path> adds one`
      : 'klaude zone add <name> <user@host> <path> adds one (docs/zones.md)',
  });
}

function checkZoneRequest(req: StartRequest): number {
  const count = req.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    throw new KlaudeError('E_USAGE', `count must be a whole number from 1 to ${MAX_COUNT} (got ${req.count})`);
  if (req.prompt.trim() === '') throw new KlaudeError('E_USAGE', 'the prompt is empty');
  if (req.runtime && !(RUNTIMES as readonly string[]).includes(req.runtime))
    throw new KlaudeError('E_USAGE', `unknown runtime '${req.runtime}' (${RUNTIMES.join(', ')})`);
  return count;
}

/** The mirror row here: pending, marked with the zone, its log empty. */
function createMirror(
  svc: AgentServices,
  req: StartRequest,
  zone: string,
  parent: SessionRow | null,
  forkedFrom: string | null = null,
): SessionRow {
  const cwd = path.resolve(req.cwd ?? svc.projectRoot);
  const s = createSession(svc.db, {
    projectId: svc.projectHash,
    parentId: parent?.id ?? null,
    instanceId: svc.instanceId,
    type: req.type,
    runtime: (req.runtime as SessionRow['runtime'] | undefined) ?? 'claude',
    status: 'pending',
    title: req.prompt.trim().split('\n')[0]!.slice(0, 120),
    prompt: req.prompt.slice(0, 2000),
    model: req.model ?? null,
    forkedFrom,
    metadata: { zone: { name: zone }, cwd, projectRoot: svc.projectRoot },
  });
  if (req.budgetUsd) setBudget(svc.db, s.id, req.budgetUsd);
  const logPath = sessionLogPath(svc.home, svc.projectHash, s.id, svc.config['logs.dir']);
  touchSessionLog(logPath);
  addEvent(svc.db, {
    projectId: svc.projectHash,
    klaudeSessionId: s.id,
    kind: 'agent.start',
    payload: { type: req.type, zone },
  });
  return updateSession(svc.db, s.id, { logPath })!;
}

function parentOf(svc: AgentServices, req: StartRequest): SessionRow | null {
  if (!req.parentId) return null;
  const p = getSession(svc.db, req.parentId);
  if (p && p.projectId === svc.projectHash) return p;
  throw new KlaudeError(
    'E_SESSION_NOT_FOUND',
    `parent session ${shortId(req.parentId)} is not a session of this project`,
    {
      hint: 'unset KLAUDE_SESSION_ID, or run klaude start from the project the session belongs to',
    },
  );
}

/** One start asked of the zone's link; a failure ends the mirror failed, with why in its log. */
async function askStart(
  svc: AgentServices,
  s: SessionRow,
  zone: string,
  ask: ZoneStartRequest,
  notes: string[],
): Promise<void> {
  try {
    const r = await askZone<{ notes?: string[] }>({ home: svc.home, env: svc.env, inv: svc.inv, zone }, ask, 150_000);
    notes.push(...(r.notes ?? []));
  } catch (e) {
    const error = `not started in zone ${zone}: ${(e as Error).message}`;
    updateSession(svc.db, s.id, { status: 'failed', endedAt: Date.now(), error });
    if (s.logPath) appendSessionEvent(s.logPath, { type: 'done', status: 'failed', error });
    // The zone's own words ("no skill 'x' here") say where "here" is.
    throw inZone(e, zone);
  }
}

/**
 * `klaude fork` of a zone's agent: the fork is another agent of that zone, forked over there, where
 * the conversation and its files are (a worktree of its own from the origin's, its uncommitted work
 * carried). Its mirror here sits beside its origin's; `klaude checkout` brings either here.
 */
export async function forkInZone(svc: AgentServices, origin: SessionRow, prompt?: string): Promise<StartOutcome> {
  const zone = zoneOf(origin)!.name;
  zoneSpec(svc, zone);
  const cwd = (origin.metadata as { cwd?: unknown } | null)?.cwd;
  const req = forkRequest(origin, prompt, typeof cwd === 'string' ? cwd : svc.projectRoot);
  const parent = origin.parentId ? (getSession(svc.db, origin.parentId) ?? null) : null;
  const s = createMirror(svc, req, zone, parent, origin.id);
  const notes: string[] = [];
  const ask: ZoneStartRequest = {
    op: 'start',
    sid: s.id,
    type: req.type,
    prompt: req.prompt,
    ...(req.model ? { model: req.model } : {}),
    forkOf: origin.id,
  };
  await askStart(svc, s, zone, ask, notes);
  return { sessions: [getSession(svc.db, s.id) ?? s], pids: [], notes, queued: {} };
}

/** Start the agents in the zone; each failure to start ends its mirror failed, with why in its log. */
export async function startInZone(svc: AgentServices, req: StartRequest, zone: string): Promise<StartOutcome> {
  const count = checkZoneRequest(req);
  zoneSpec(svc, zone);
  const parent = parentOf(svc, req);
  const notes: string[] = [];
  const share = req.share ? await sharedContext(svc, parent, notes) : null;
  const repo = gitTopLevel(path.resolve(req.cwd ?? svc.projectRoot));
  const base = repo ? headCommit(repo) : null;
  const sessions: SessionRow[] = [];
  for (let i = 0; i < count; i++) {
    const s = createMirror(svc, req, zone, parent);
    const ask: ZoneStartRequest = {
      op: 'start',
      sid: s.id,
      type: req.type,
      prompt: req.prompt,
      ...(req.runtime ? { runtime: req.runtime } : {}),
      ...(req.model ? { model: req.model } : {}),
      ...(req.budgetUsd ? { budgetUsd: req.budgetUsd } : {}),
      ...(req.sandbox ? { sandbox: req.sandbox } : {}),
      ...(req.bypassWithoutSandbox ? { bypassWithoutSandbox: true } : {}),
      ...(req.priority ? { priority: req.priority } : {}),
      ...(req.skill ? { skill: req.skill } : {}),
      ...(share ? { share } : {}),
      ...(base && repo ? { base, repo } : {}),
    };
    await askStart(svc, s, zone, ask, notes);
    sessions.push(getSession(svc.db, s.id) ?? s);
  }
  return { sessions, pids: [], notes, queued: {} };
}
