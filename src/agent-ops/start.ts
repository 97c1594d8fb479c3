/**
 * Starting agents: create the child session(s), pick the native session id up front (claude), link
 * it, and spawn one detached runtime per agent. Runs in the supervisor (control action `start`) or
 * in the `klaude start` command itself when no supervisor runs: same code, same records.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import { sessionLogPath } from '../config/paths.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { createSession, getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { appendSessionEvent, touchSessionLog } from '../logs/writer.js';
import { admit, queueInForce, queuePosition } from '../db/repos/queue.js';
import { runLimits, startQueued, type QueuedRequest } from './queue.js';
import { getAdapter } from '../adapters/registry.js';
import { chooseRuntime } from './select-runtime.js';
import {
  launchMetadata,
  resolveAgentType,
  type AgentLaunchMetadata,
  type AgentTypeConfig,
} from '../agent-types/launch-settings.js';
import type { AgentServices } from './context.js';
import { spawnRuntime } from './launch.js';
import { shareContextFrom } from './share.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import { createAgentWorktree, worktreeSource, type AgentWorktree } from '../git/worktree.js';
import type { StartPayload } from '../control/protocol.js';

export const MAX_COUNT = 20;

/** What startAgents takes: the control protocol's start payload (one declaration for both). */
export type StartRequest = StartPayload;

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

/** Parent's transcript for --share: its recorded path, else where Claude keeps it for the parent's cwd. */
function parentTranscript(svc: AgentServices, parent: SessionRow): string | null {
  if (parent.transcriptPath) return parent.transcriptPath;
  if (!parent.nativeSessionId || parent.runtime !== 'claude') return null;
  const cwd = launchMetadata(parent)?.cwd ?? svc.projectRoot;
  return claudeTranscriptPath(cwd, parent.nativeSessionId, svc.env);
}

export async function startAgents(svc: AgentServices, req: StartRequest): Promise<StartOutcome> {
  const count = req.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new KlaudeError('E_USAGE', `count must be a whole number from 1 to ${MAX_COUNT} (got ${req.count})`);
  }
  if (req.prompt.trim() === '')
    throw new KlaudeError('E_USAGE', 'the prompt is empty', { hint: 'klaude start <type> "<prompt>"' });
  const notes: string[] = [];
  const cwd = path.resolve(req.cwd ?? svc.projectRoot);
  const { parent } = pickParent(svc, req);
  const agent = await resolveAgentType(req.type, { cwd, env: svc.env, parent });
  const { runtime, model } = chooseRuntime({
    flag: req.runtime,
    definition: agent.runtime,
    model: req.model ?? agent.model,
    configModel: svc.config['agents.model'],
    configDefault: svc.config['agents.defaultRuntime'],
  });
  const adapter = await getAdapter(runtime);
  adapter.resolveBinary(svc.config, svc.env); // fail now, with the install hint, not inside the runtime

  let share: string | null = null;
  if (req.share) {
    const transcript = parent ? parentTranscript(svc, parent) : null;
    share = transcript ? await shareContextFrom(transcript, `session ${shortId(parent!.id)}`) : null;
    if (!share) {
      notes.push(
        parent
          ? `--share: no conversation found for ${shortId(parent.id)}; started without shared context`
          : '--share: no parent session; started without shared context',
      );
    }
  }

  const useWorktree = req.worktree === true || (agent.worktree ?? svc.config['agents.worktree']);
  const source = useWorktree ? worktreeSource(cwd) : null; // outside a repository: one line, nothing created

  const { type: _t, runtime: _r, model: _m, ...agentRest } = agent;
  const metadata: AgentLaunchMetadata = { cwd, projectRoot: svc.projectRoot, agent: agentRest };
  const sessions: SessionRow[] = [];
  const pids: number[] = [];
  const queued: Record<string, number> = {};
  const limits = runLimits(svc.config);
  for (let i = 0; i < count; i++) {
    const nativeId = adapter.choosesSessionIdUpFront ? adapter.newSessionId() : null;
    let s = createSession(svc.db, {
      projectId: svc.projectHash,
      parentId: parent?.id ?? null,
      instanceId: svc.instanceId,
      type: req.type,
      runtime,
      status: 'pending',
      title: req.prompt.trim().split('\n')[0]!.slice(0, 120),
      prompt: req.prompt.slice(0, 2000),
      model,
      metadata: metadata as unknown as Record<string, unknown>,
    });
    const logPath = sessionLogPath(svc.home, svc.projectHash, s.id, svc.config['logs.dir']);
    touchSessionLog(logPath);
    s = updateSession(svc.db, s.id, { logPath })!;
    let agentCwd = cwd;
    if (source) {
      let wt: AgentWorktree;
      try {
        wt = createAgentWorktree({
          home: svc.home,
          projectHash: svc.projectHash,
          sessionId: s.id,
          type: req.type,
          ...source,
          cwd: realpathSync(cwd),
        });
      } catch (e) {
        updateSession(svc.db, s.id, { status: 'failed', endedAt: Date.now() });
        appendSessionEvent(logPath, { type: 'done', status: 'failed', error: (e as Error).message });
        throw e;
      }
      agentCwd = wt.cwd;
      s = updateSession(svc.db, s.id, {
        worktreePath: wt.path,
        worktreeBranch: wt.branch,
        worktreeBase: wt.base,
        metadata: { ...metadata, cwd: wt.cwd } as unknown as Record<string, unknown>,
      })!;
    }
    if (nativeId && runtime === 'claude') {
      linkClaudeSession(svc.db, {
        klaudeSessionId: s.id,
        claudeSessionId: nativeId,
        transcriptPath: adapter.transcriptPath?.(agentCwd, nativeId, svc.env) ?? null,
        source: 'headless',
      });
      s = getSession(svc.db, s.id)!;
    } else if (nativeId) {
      s = updateSession(svc.db, s.id, { nativeSessionId: nativeId })!;
    }
    addEvent(svc.db, {
      projectId: svc.projectHash,
      klaudeSessionId: s.id,
      kind: 'agent.start',
      payload: { type: req.type, runtime, count },
    });
    if (queueInForce(svc.db, limits, Date.now())) {
      const request: QueuedRequest = { prompt: req.prompt, share };
      s = updateSession(svc.db, s.id, {
        metadata: { ...metadata, queuedRequest: request } as unknown as Record<string, unknown>,
      })!;
      const place = admit(svc.db, s.id, runtime, limits);
      if (place.queued) {
        appendSessionEvent(logPath, { type: 'queued', position: place.position });
        queued[s.id] = place.position;
        sessions.push(getSession(svc.db, s.id)!);
        continue;
      }
    }
    try {
      pids.push(
        await spawnRuntime({
          home: svc.home,
          sessionId: s.id,
          request: { prompt: req.prompt, source: 'start', share },
          inv: svc.inv,
          env: { ...svc.env, KLAUDE_PROJECT_HASH: svc.projectHash },
          cwd: agentCwd,
        }),
      );
    } catch (e) {
      updateSession(svc.db, s.id, { status: 'failed', endedAt: Date.now() });
      appendSessionEvent(logPath, { type: 'done', status: 'failed', error: (e as Error).message });
      throw e;
    }
    sessions.push(s);
  }
  if (Object.keys(queued).length > 0) {
    // A slot may have freed between the count and now: start whoever is first (maybe these).
    await startQueued({ ...svc, log: undefined });
    for (const id of Object.keys(queued)) {
      const pos = queuePosition(svc.db, id);
      if (pos > 0) queued[id] = pos;
      else delete queued[id];
    }
  }
  return { sessions: sessions.map((x) => getSession(svc.db, x.id) ?? x), pids, notes, queued };
}
