/**
 * The requests the serve end answers (serve.ts wires them to the channel): what a zone link asks
 * of this machine's klaude on the person's behalf — start an agent, deliver a message once,
 * interrupt, answer a permission request, diff, commit an agent's work for a merge. Each is the
 * same agent-ops call a command here would make; the zone adds only ids, keys and the mark that
 * the agent's requests are answered through the link.
 */
import os from 'node:os';
import { appendFileSync } from 'node:fs';
import { startAgents } from '../agent-ops/start.js';
import { forkPlace, forkRequest } from '../agent-ops/fork.js';
import type { StartRequest } from '../control/protocol.js';
import { assertNotMovedAway, deliverMessage, interruptAgent, queuedMessages } from '../agent-ops/message.js';
import { answerRequest } from '../agent-ops/approvals.js';
import type { AgentServices } from '../agent-ops/context.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { zoneHeldOf } from '../core/zone.js';
import { git, gitTopLevel, gitOk } from '../git/exec.js';
import { commitAgentWork } from '../git/merge.js';
import { sessionDiff } from '../git/session-diff.js';
import { KlaudeError } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
import { shortId } from '../core/ids.js';
import { onceByKey } from './serve-keys.js';
import { mirrorRowOf, ZONE_PROTOCOL, type ServeHello } from './wire.js';
import type { WireRequest } from './channel.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function need(v: unknown, name: string): string {
  const s = str(v);
  if (!s) throw new KlaudeError('E_BAD_REQUEST', `${name} is missing`);
  return s;
}

/**
 * An agent a zone link started here (no other agent is the link's to act on). `resumes`: the caller
 * would have its conversation written here, refused once `klaude checkout` took it to the person's
 * machine.
 */
export function zoneAgent(svc: AgentServices, sid: unknown, o: { resumes?: boolean } = {}): SessionRow {
  const s = getSession(svc.db, need(sid, 'sid'));
  if (!s || !zoneHeldOf(s)) throw new KlaudeError('E_SESSION_NOT_FOUND', `no agent ${String(sid)} of a zone link here`);
  if (o.resumes) assertNotMovedAway(s);
  return s;
}

export function hello(svc: AgentServices): ServeHello {
  return { protocol: ZONE_PROTOCOL, version: VERSION, host: os.hostname(), pid: process.pid, root: svc.projectRoot };
}

/** Start one agent with the link's id (idempotent: a start sent again after a dropped link returns the first). */
export async function start(svc: AgentServices, r: WireRequest, from: string): Promise<unknown> {
  const sid = need(r.sid, 'sid');
  const had = getSession(svc.db, sid);
  if (had) return { row: mirrorRowOf(had) };
  const base = str(r.base) ?? null;
  const top = gitTopLevel(svc.projectRoot);
  if (base && top && git(top, ['cat-file', '-e', `${base}^{commit}`]).code !== 0)
    throw new KlaudeError('E_ZONE_SETUP', `commit ${base.slice(0, 10)} is not in ${top} on ${os.hostname()}`, {
      details: { missingBase: base },
    });
  const out = await startAgents(svc, {
    type: need(r.type, 'type'),
    prompt: need(r.prompt, 'prompt'),
    count: 1,
    runtime: str(r.runtime),
    model: str(r.model),
    ...(typeof r.budgetUsd === 'number' ? { budgetUsd: r.budgetUsd } : {}),
    // What the person asked for here; the zone's own definitions and config decide the rest.
    ...(r.sandbox === 'on' || r.sandbox === 'off' ? { sandbox: r.sandbox } : {}),
    ...(r.bypassWithoutSandbox === true ? { bypassWithoutSandbox: true } : {}),
    ...(r.priority === 'high' || r.priority === 'normal' || r.priority === 'low' ? { priority: r.priority } : {}),
    ...(str(r.skill) ? { skill: str(r.skill) } : {}),
    // The clone's own worktree per agent: the person's tree over here is never edited.
    worktree: top !== null,
    parentId: null,
    cwd: svc.projectRoot,
    zone: { id: sid, base: top ? base : null, share: str(r.share) ?? null, from },
    ...forkHere(svc, r.forkOf),
  });
  const row = getSession(svc.db, sid) ?? out.sessions[0]!;
  return { row: mirrorRowOf(row), notes: out.notes };
}

/**
 * `klaude fork` of an agent here: the fork works where its origin's conversation and files are (a
 * worktree of its own made from the origin's, its uncommitted work carried: agent-ops/fork.ts).
 */
function forkHere(svc: AgentServices, originId: unknown): Pick<StartRequest, 'forkOf' | 'cwd'> {
  if (originId === undefined) return {};
  const origin = zoneAgent(svc, originId, { resumes: true });
  const req = forkRequest(origin, undefined, forkPlace(svc.db, origin).cwd);
  return { forkOf: req.forkOf, cwd: req.cwd };
}

/** Deliver a message once per key; one held while the link was down and refused here is said in its log. */
export async function message(svc: AgentServices, r: WireRequest, from: string): Promise<unknown> {
  const s = zoneAgent(svc, r.sid, { resumes: true });
  const prompt = need(r.prompt, 'prompt');
  try {
    return await onceByKey(svc.home, need(r.key, 'key'), () => deliverMessage(svc, s.id, prompt));
  } catch (e) {
    if (r.held === true && e instanceof KlaudeError && e.code !== 'E_SESSION_BUSY' && s.logPath)
      noteInLog(s.logPath, `a message sent from ${from} while the link was down was not delivered: ${e.message}`);
    throw e;
  }
}

function noteInLog(logPath: string, text: string): void {
  try {
    appendFileSync(logPath, `${JSON.stringify({ type: 'error', message: text, ts: Date.now() })}\n`);
  } catch {
    /* the link's caller hears the error anyway */
  }
}

export async function interrupt(svc: AgentServices, r: WireRequest): Promise<unknown> {
  const s = zoneAgent(svc, r.sid);
  if (r.peek === true) return { dropped: await queuedMessages(svc, s.id) };
  return interruptAgent(svc, s.id);
}

/** An answer the person gave on their machine; the runtime takes it because it comes through this link. */
export async function answer(svc: AgentServices, r: WireRequest): Promise<unknown> {
  const s = zoneAgent(svc, r.sid);
  return answerRequest(
    svc,
    s.id,
    {
      request: need(r.requestId, 'requestId'),
      behavior: r.behavior === 'allow' ? 'allow' : 'deny',
      ...(r.always === true ? { always: true } : {}),
      ...(str(r.message) ? { message: str(r.message) } : {}),
    },
    str(r.by) ?? 'person',
  );
}

export async function diff(svc: AgentServices, r: WireRequest): Promise<unknown> {
  const s = zoneAgent(svc, r.sid);
  return sessionDiff(s, { projectRoot: svc.projectRoot, logPath: s.logPath, patch: r.patch === true });
}

/** Before a merge on the person's machine: the agent's uncommitted work committed on its branch, and the branch's tip. */
export function commit(svc: AgentServices, r: WireRequest): unknown {
  const s = zoneAgent(svc, r.sid);
  if (!s.worktreeBranch) {
    throw new KlaudeError('E_NO_WORKTREE', `${s.type} ${shortId(s.id)} has no branch over there to merge`, {
      hint: 'the zone’s path is not a git repository: klaude zone check tells',
    });
  }
  const committed = commitAgentWork(s);
  const top = gitTopLevel(svc.projectRoot)!;
  const tip = gitOk(top, ['rev-parse', `refs/heads/${s.worktreeBranch}`]).trim();
  return { committed, branch: s.worktreeBranch, tip };
}
