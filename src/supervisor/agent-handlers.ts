/**
 * The supervisor's control actions for sub-agents: `start`, `message`, `interrupt`. They run the
 * same services as the commands do without a supervisor (src/agent-ops), with this supervisor's
 * instance id on the new rows and its socket in the agents' environment (so an agent's own
 * `klaude start` comes back here), and they publish session events for subscribers (dashboard).
 * `start` with `checkout` switches the foreground to the first new agent when its first turn ends
 * (its run is finished, so nothing is lost) and the person continues the conversation in the
 * foreground; with `checkoutNow` it switches once the conversation exists (its first message is
 * in the Claude transcript), stopping the headless run, and the foreground continues the turn.
 *
 * Wire into supervisorHandlers: `{ ...agentHandlers(deps), ping, status, … }`.
 */
import { readFile } from 'node:fs/promises';
import { clearAgentDefinitionCache } from '../agent-types/index.js';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import type { ControlHandlers } from '../control/server.js';
import { resolveSession } from '../db/repos/resolve.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { isKlaudeError } from '../lib/errors.js';
import { sleep } from '../lib/process.js';
import type { AgentServices } from '../agent-ops/context.js';
import { startAgents } from '../agent-ops/start.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { deliverMessage, interruptAgent } from '../agent-ops/message.js';
import type { HandlerDeps } from './handler-deps.js';
import { claudeTranscriptPath } from '../claude/transcript.js';

const TRANSCRIPT_POLL_MS = 200;

export function agentServicesOf(d: Pick<HandlerDeps, 'ctx'>): AgentServices {
  const { ctx } = d;
  return {
    home: ctx.home,
    config: ctx.config,
    db: ctx.db,
    projectRoot: ctx.projectRoot,
    projectHash: ctx.projectHash,
    env: {
      ...ctx.env,
      KLAUDE_SOCKET: ctx.socketPath,
      KLAUDE_INSTANCE_ID: ctx.instanceId,
      KLAUDE_PROJECT_HASH: ctx.projectHash,
    },
    inv: ctx.inv,
    instanceId: ctx.instanceId,
  };
}

export function agentHandlers(d: HandlerDeps): Pick<ControlHandlers, 'start' | 'message' | 'interrupt'> {
  const { ctx } = d;
  return {
    start: async (p) => {
      // A long-lived process: pick up agent files added or edited since the last start.
      clearAgentDefinitionCache();
      const svc = agentServicesOf(d);
      const out = await startAgents(svc, {
        type: p.type,
        prompt: p.prompt,
        count: p.count,
        runtime: p.runtime,
        model: p.model,
        share: p.share,
        worktree: p.worktree,
        parentId: p.parentId ?? null,
        cwd: p.cwd ?? ctx.cwd,
        ...(p.budgetUsd ? { budgetUsd: p.budgetUsd } : {}),
        ...(p.sandbox ? { sandbox: p.sandbox } : {}),
        ...(p.bypassWithoutSandbox ? { bypassWithoutSandbox: true } : {}),
        ...(p.skill ? { skill: p.skill } : {}),
        ...(p.priority ? { priority: p.priority } : {}),
      });
      for (const s of out.sessions) {
        d.publish({
          type: 'session.created',
          sessionId: s.id,
          parentId: s.parentId,
          agentType: s.type,
          runtime: s.runtime,
          status: s.status,
        });
      }
      const first = out.sessions[0];
      // The reply must not wait for the agent's turn; the checkout helpers log their own failures.
      if (p.checkout && first) void (p.checkoutNow ? checkoutWhenBegun(d, first) : checkoutWhenTurnEnds(d, first));
      return { sessionIds: out.sessions.map((s) => s.id), ...(out.notes.length ? { notes: out.notes } : {}) };
    },
    message: async (p) => {
      const s = resolveSession(ctx.db, p.sessionId, { projectId: ctx.projectHash });
      const r = await deliverMessage(agentServicesOf(d), s.id, p.prompt, p.images ?? []);
      d.publish({ type: 'session.changed', sessionId: s.id, status: 'running', pid: r.pid });
      return { delivered: r.delivered, pid: r.pid };
    },
    interrupt: async (p) => {
      const svc = agentServicesOf(d);
      const results: { sessionId: string; ok: boolean; code?: string }[] = [];
      const dropped: string[] = [];
      for (const input of p.sessionIds) {
        try {
          const s = resolveSession(ctx.db, input, { projectId: ctx.projectHash });
          dropped.push(...(await interruptAgent(svc, s.id)).dropped);
          results.push({ sessionId: s.id, ok: true });
        } catch (e) {
          results.push({ sessionId: input, ok: false, code: isKlaudeError(e) ? e.code : 'E_INTERNAL' });
        }
      }
      return { results, ...(dropped.length ? { dropped } : {}) };
    },
  };
}

/** When the agent's first turn has ended (any terminal status), check it out. */
async function checkoutWhenTurnEnds(d: HandlerDeps, s: SessionRow): Promise<void> {
  const { ctx } = d;
  try {
    for (;;) {
      const cur = getSession(ctx.db, s.id);
      if (!cur || isTerminal(cur.status)) break;
      await sleep(TRANSCRIPT_POLL_MS);
    }
    await switchTo(d, s);
  } catch (err) {
    reportFailure(d, s, err);
  }
}

/** `--now`: once the agent's first message is in its Claude transcript, check it out (bounded by switch.targetTimeoutSeconds). */
async function checkoutWhenBegun(d: HandlerDeps, s: SessionRow): Promise<void> {
  const { ctx } = d;
  const deadline = Date.now() + ctx.config['switch.targetTimeoutSeconds'] * 1000;
  try {
    for (;;) {
      const cur = getSession(ctx.db, s.id);
      const native = cur?.nativeSessionId;
      if (native) {
        const file = cur.transcriptPath ?? claudeTranscriptPath(launchMetadata(cur)?.cwd ?? ctx.cwd, native, ctx.env);
        const text = await readFile(file, 'utf8').catch(() => '');
        if (text.includes('"type":"user"')) break;
      }
      if (Date.now() > deadline) {
        ctx.log.warn('checkout of a new agent: its conversation did not appear in time', { sessionId: s.id });
        break;
      }
      await sleep(TRANSCRIPT_POLL_MS);
    }
    await switchTo(d, s);
  } catch (err) {
    reportFailure(d, s, err);
  }
}

async function switchTo(d: HandlerDeps, s: SessionRow): Promise<void> {
  d.publish({ type: 'instance.switching', switching: true, targetSessionId: s.id });
  try {
    // Forced: the person asked for this switch when starting it (with --now, the run is stopped).
    await d.switcher.checkout({ target: s.id, force: true });
  } finally {
    d.publish({ type: 'instance.switching', switching: false });
  }
}

function reportFailure(d: HandlerDeps, s: SessionRow, err: unknown): void {
  d.ctx.log.error('checkout of a new agent failed', { err, sessionId: s.id });
  process.stderr.write(`\r\nklaude: could not check out agent ${shortId(s.id)}: ${(err as Error).message}\r\n`);
}
