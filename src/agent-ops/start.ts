/**
 * Starting agents: create the child session(s), pick the native session id up front (claude), link
 * it, and spawn one detached runtime per agent. Runs in the supervisor (control action `start`) or
 * in the `klaude start` command itself when no supervisor runs: same code, same records.
 */
import { budgetReached, setBudget } from '../db/repos/budgets.js';
import { heldText } from './budget.js';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import { priorityLevel } from '../core/priority.js';
import { sessionLogPath } from '../config/paths.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { createSession, getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { appendSessionEvent, touchSessionLog } from '../logs/writer.js';
import { admit, queueInForce, queuePosition, type RunLimits } from '../db/repos/queue.js';
import { runLimits, startQueued, type QueuedRequest } from './queue.js';
import { getAdapter } from '../adapters/registry.js';
import type { RuntimeAdapter } from '../adapters/runtime-adapter.js';
import type { RuntimeName } from '../config/schema.js';
import { chooseRuntime } from './select-runtime.js';
import { readOnlyAgent } from '../agent-types/read-only.js';
import { planSkill, skillPrompt, skillTitle, type SkillRun } from './skill-prompt.js';
import { createReview } from '../db/repos/reviews.js';
import {
  launchMetadata,
  resolveAgentType,
  type AgentLaunchMetadata,
  type AgentTypeConfig,
} from '../agent-types/launch-settings.js';
import type { AgentServices } from './context.js';
import { spawnRuntime } from './launch.js';
import { keepLaunchEnv, type LaunchSpec } from './launch-env.js';
import { sharedContext } from './share.js';
import { forkTree, furnishFork, type ForkTree } from './fork.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import { createAgentWorktree, worktreeSource, type AgentWorktree } from '../git/worktree.js';
import type { StartRequest } from '../control/protocol.js';
import { planSandbox } from './sandbox-plan.js';

export const MAX_COUNT = 20;

export interface StartOutcome {
  sessions: SessionRow[];
  pids: number[];
  /** Things the caller should tell the person (e.g. nothing to share). */
  notes: string[];
  /** Sessions that wait in the run queue, by id: their 1-based position. */
  queued: Record<string, number>;
}

function pickParent(svc: AgentServices, req: StartRequest): { parent: SessionRow | null; note?: string } {
  if (!req.parentId) return { parent: null };
  const p = getSession(svc.db, req.parentId);
  if (p && p.projectId === svc.projectHash) return { parent: p };
  throw new KlaudeError(
    'E_SESSION_NOT_FOUND',
    `parent session ${shortId(req.parentId)} is not a session of this project`,
    {
      hint: 'unset KLAUDE_SESSION_ID, or run klaude start from the project the session belongs to',
    },
  );
}

/** What every agent of one start shares: where it works, what runs it, the context it gets. */
interface StartPlan {
  req: StartRequest;
  count: number;
  /** The directory the agents work in (a worktree of it, with `source`). */
  cwd: string;
  parent: SessionRow | null;
  runtime: RuntimeName;
  model: string | null;
  adapter: RuntimeAdapter;
  /** The parent's conversation appended to the prompt (--share), if there is one. */
  share: string | null;
  /** Where each agent's worktree comes from; null: no worktrees. */
  source: { top: string; head: string } | null;
  /** A fork of a worktree agent: its worktree is made from the origin's (agent-ops/fork.ts). */
  fork: ForkTree | null;
  metadata: AgentLaunchMetadata;
  limits: RunLimits;
  /** Each agent's own spend limit: --budget, else the definition's budgetUsd, else config agents.budgetUsd. */
  budgetUsd: number | null;
  /** The skill it runs (--skill, else the definition's `skill:`), the prompt being its arguments. */
  skill: SkillRun | null;
  /** Run-queue priority (stored level): --priority, else the definition's, else normal. */
  priority: number;
}

/** The number of agents to start; a bad count is refused before anything is made. */
function checkCount(req: StartRequest): number {
  const count = req.count ?? 1;
  if (req.zone && count !== 1) throw new KlaudeError('E_USAGE', 'a start from a zone link is one agent');
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new KlaudeError('E_USAGE', `count must be a whole number from 1 to ${MAX_COUNT} (got ${req.count})`);
  }
  return count;
}

/** The skill the agents run, if any; without one an empty prompt is refused. */
function skillOf(
  svc: AgentServices,
  req: StartRequest,
  agent: AgentTypeConfig,
  cwd: string,
  notes: string[],
): SkillRun | null {
  const name = req.skill ?? agent.skill ?? null;
  if (name) return planSkill(name, req.prompt, cwd, svc.env, notes);
  if (req.prompt.trim() === '')
    throw new KlaudeError('E_USAGE', 'the prompt is empty', { hint: 'klaude start <type> "<prompt>"' });
  return null;
}

/** Parent, agent type, runtime and shared context: everything decided once for all the agents. */
async function planStart(svc: AgentServices, req: StartRequest, notes: string[]): Promise<StartPlan> {
  const count = checkCount(req);
  const cwd = path.resolve(req.cwd ?? svc.projectRoot);
  const { parent } = pickParent(svc, req);
  const agent = await resolveAgentType(req.type, { cwd, env: svc.env, parent });
  const skill = skillOf(svc, req, agent, cwd, notes);
  const { runtime, model } = chooseRuntime({
    flag: req.runtime,
    definition: agent.runtime,
    model: req.model ?? agent.model,
    configModel: svc.config['agents.model'],
    configDefault: svc.config['agents.defaultRuntime'],
  });
  const adapter = await getAdapter(runtime);
  adapter.resolveBinary(svc.config, svc.env); // fail now, with the install hint, not inside the runtime
  const sandbox = planSandbox(
    { home: svc.home, config: svc.config, env: svc.env, runtime, adapter, parent },
    {
      flag: req.sandbox,
      definition: agent.sandbox ?? null,
      permissionMode: agent.permissionMode ?? svc.config['agents.permissionMode'],
      bypassWithoutSandbox: req.bypassWithoutSandbox,
    },
    notes,
  );
  const share = req.zone ? req.zone.share : req.share ? await sharedContext(svc, parent, notes) : null;
  // A fork works where its origin's conversation is, or in a worktree of its own made from the origin's;
  // a reviewer reads its origin's tree, never a worktree of its own.
  const fork = forkTree(svc, req);
  const useWorktree =
    !req.forkOf && !req.reviewOf && (req.worktree === true || (agent.worktree ?? svc.config['agents.worktree']));
  // Outside a repository: one line, nothing created.
  const source = fork ? { top: fork.top, head: fork.head } : useWorktree ? zoneSource(req, cwd) : null;
  const {
    type: _t,
    runtime: _r,
    model: _m,
    budgetUsd: defBudget,
    priority: defPriority,
    ...agentRest
  } = req.reviewOf ? readOnlyAgent(agent, runtime) : agent;
  const metadata: AgentLaunchMetadata & { forkOf?: string; zoneHeld?: { from: string } } = {
    cwd,
    projectRoot: svc.projectRoot,
    agent: agentRest,
    sandbox,
    ...(req.forkOf ? { forkOf: req.forkOf.claudeSessionId } : {}),
    ...(req.zone ? { zoneHeld: { from: req.zone.from } } : {}),
  };
  const budgetUsd = req.budgetUsd ?? defBudget ?? (svc.config['agents.budgetUsd'] || null);
  const limits = runLimits(svc.config);
  const priority = priorityLevel(req.priority ?? defPriority ?? 'normal');
  return {
    req,
    count,
    cwd,
    parent,
    runtime,
    model,
    adapter,
    share,
    source,
    fork,
    metadata,
    limits,
    budgetUsd,
    skill,
    priority,
  };
}

/** Where worktrees come from: this repository's HEAD, or for a start from a zone link the commit it names. */
function zoneSource(req: StartRequest, cwd: string): { top: string; head: string } {
  const here = worktreeSource(cwd);
  return req.zone?.base ? { top: here.top, head: req.zone.base } : here;
}

/** One agent as it is about to run: its row, its log, the directory it runs in, its first prompt. */
interface NewAgent {
  session: SessionRow;
  logPath: string;
  cwd: string;
  prompt: string;
}

/** The session row and its (empty) log, then its worktree and native session id. */
function createAgent(svc: AgentServices, plan: StartPlan): NewAgent {
  const { req, adapter } = plan;
  const nativeId = adapter.choosesSessionIdUpFront ? adapter.newSessionId() : null;
  const created = createSession(svc.db, {
    ...(req.zone ? { id: req.zone.id } : {}),
    projectId: svc.projectHash,
    parentId: plan.parent?.id ?? null,
    instanceId: svc.instanceId,
    type: req.type,
    runtime: plan.runtime,
    status: 'pending',
    title: (req.title ?? (plan.skill ? skillTitle(plan.skill) : req.prompt.trim().split('\n')[0]!)).slice(0, 120),
    prompt: (plan.skill ? skillTitle(plan.skill) : req.prompt).slice(0, 2000),
    model: plan.model,
    metadata: plan.metadata as unknown as Record<string, unknown>,
    forkedFrom: req.forkOf?.sessionId ?? null,
    reviewOf: req.reviewOf?.sessionId ?? null,
    priority: plan.priority,
  });
  if (req.reviewOf) createReview(svc.db, { ...req.reviewOf, sessionId: created.id });
  if (plan.budgetUsd) setBudget(svc.db, created.id, plan.budgetUsd);
  const logPath = sessionLogPath(svc.home, svc.projectHash, created.id, svc.config['logs.dir']);
  touchSessionLog(logPath);
  const session = updateSession(svc.db, created.id, { logPath })!;
  let agent: NewAgent = { session, logPath, cwd: plan.cwd, prompt: req.prompt };
  if (plan.source) agent = giveWorktree(svc, plan, plan.source, agent);
  if (plan.skill) {
    const where = { top: plan.source?.top ?? null, worktreeTop: agent.session.worktreePath };
    agent.prompt = skillPrompt(plan.skill, plan.runtime, where);
  }
  if (nativeId) agent.session = linkNativeSession(svc, plan, agent, nativeId);
  addEvent(svc.db, {
    projectId: svc.projectHash,
    klaudeSessionId: agent.session.id,
    kind: 'agent.start',
    payload: { type: req.type, runtime: plan.runtime, count: plan.count },
  });
  return agent;
}

/** The run failed before it began: the session ends failed, its log says why, and the start fails. */
function failStarting(svc: AgentServices, agent: { session: SessionRow; logPath: string }, e: unknown): never {
  updateSession(svc.db, agent.session.id, { status: 'failed', endedAt: Date.now() });
  appendSessionEvent(agent.logPath, { type: 'done', status: 'failed', error: (e as Error).message });
  throw e;
}

function giveWorktree(
  svc: AgentServices,
  plan: StartPlan,
  source: { top: string; head: string },
  agent: NewAgent,
): NewAgent {
  let wt: AgentWorktree;
  try {
    wt = createAgentWorktree({
      home: svc.home,
      projectHash: svc.projectHash,
      sessionId: agent.session.id,
      type: plan.req.type,
      ...source,
      cwd: realpathSync(plan.cwd),
      ...(plan.fork ? { sub: plan.fork.sub } : {}),
    });
  } catch (e) {
    failStarting(svc, agent, e);
  }
  let session = updateSession(svc.db, agent.session.id, {
    worktreePath: wt.path,
    worktreeBranch: wt.branch,
    worktreeBase: plan.fork?.base ?? wt.base,
    metadata: { ...plan.metadata, cwd: wt.cwd } as unknown as Record<string, unknown>,
  })!;
  if (plan.fork) {
    try {
      const forked = furnishFork(svc, plan.fork, wt);
      session = updateSession(svc.db, session.id, { metadata: { ...session.metadata, ...forked } })!;
    } catch (e) {
      failStarting(svc, { session, logPath: agent.logPath }, e); // the worktree is recorded: prune finds it
    }
  }
  return { ...agent, session, cwd: wt.cwd };
}

/** The native session id chosen up front: for claude a link (with its transcript), else just the id. */
function linkNativeSession(svc: AgentServices, plan: StartPlan, agent: NewAgent, nativeId: string): SessionRow {
  const id = agent.session.id;
  if (plan.runtime !== 'claude') return updateSession(svc.db, id, { nativeSessionId: nativeId })!;
  linkClaudeSession(svc.db, {
    klaudeSessionId: id,
    claudeSessionId: nativeId,
    transcriptPath: plan.adapter.transcriptPath?.(agent.cwd, nativeId, svc.env) ?? null,
    source: 'headless',
  });
  return getSession(svc.db, id)!;
}

/**
 * When run limits are in force, the request is kept with the session and the queue admits it or
 * not: its place in the queue, or null when it may run now. A queued agent keeps what its runtime
 * would be launched with now (this caller's environment and klaude, its cwd, worktree included, in
 * its row), so whoever frees a slot later starts it as this start would have.
 */
function queueIfFull(svc: AgentServices, plan: StartPlan, agent: NewAgent): number | null {
  // Over budget (its parent's tree spent its limit): it waits in the queue until the limit is raised.
  const over = budgetReached(svc.db, agent.session.id);
  const held = over !== null;
  if (!held && !queueInForce(svc.db, plan.limits, Date.now())) return null;
  const request: QueuedRequest = { prompt: agent.prompt, share: plan.share, images: [] };
  try {
    keepLaunchEnv(svc.home, agent.session.id, runtimeLaunch(svc));
  } catch (e) {
    failStarting(svc, agent, e);
  }
  agent.session = updateSession(svc.db, agent.session.id, {
    metadata: { ...agent.session.metadata, cwd: agent.cwd, queuedRequest: request },
  })!;
  const place = admit(svc.db, agent.session.id, plan.runtime, plan.limits);
  if (!place.queued) return null;
  appendSessionEvent(agent.logPath, {
    type: 'queued',
    position: place.position,
    ...(over ? { reason: heldText(over) } : {}),
  });
  return place.position;
}

/** What this start launches a runtime with. */
function runtimeLaunch(svc: AgentServices): LaunchSpec {
  return { env: { ...svc.env, KLAUDE_PROJECT_HASH: svc.projectHash }, inv: svc.inv };
}

async function spawnAgent(svc: AgentServices, plan: StartPlan, agent: NewAgent): Promise<number> {
  try {
    return await spawnRuntime({
      home: svc.home,
      sessionId: agent.session.id,
      request: { prompt: agent.prompt, source: 'start', share: plan.share },
      ...runtimeLaunch(svc),
      cwd: agent.cwd,
    });
  } catch (e) {
    failStarting(svc, agent, e);
  }
}

/** A slot may have freed between the count and now: start whoever is first (maybe these), then re-read the places. */
async function startFreedSlots(svc: AgentServices, queued: Record<string, number>): Promise<void> {
  await startQueued({ ...svc, log: undefined });
  for (const id of Object.keys(queued)) {
    const pos = queuePosition(svc.db, id);
    if (pos > 0) queued[id] = pos;
    else delete queued[id];
  }
}

export async function startAgents(svc: AgentServices, req: StartRequest): Promise<StartOutcome> {
  const notes: string[] = [];
  const plan = await planStart(svc, req, notes);
  const sessions: SessionRow[] = [];
  const pids: number[] = [];
  const queued: Record<string, number> = {};
  for (let i = 0; i < plan.count; i++) {
    const agent = createAgent(svc, plan);
    const position = queueIfFull(svc, plan, agent);
    if (position !== null) {
      queued[agent.session.id] = position;
      sessions.push(getSession(svc.db, agent.session.id)!);
      continue;
    }
    pids.push(await spawnAgent(svc, plan, agent));
    sessions.push(agent.session);
  }
  if (Object.keys(queued).length > 0) await startFreedSlots(svc, queued);
  return { sessions: sessions.map((x) => getSession(svc.db, x.id) ?? x), pids, notes, queued };
}
