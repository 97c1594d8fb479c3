/**
 * `klaude wait <id…> [--any] [--timeout s]`: block until the agents are done, print each finished
 * one's summary. Exit 0 all done, 1 one failed/interrupted, 124 timeout (they keep running),
 * 3 an agent waits on a permission request the caller (a parent Claude, agents.approvals: parent)
 * should answer. Permission requests are named on stderr as they come.
 */
import { shortId } from '../../core/ids.js';
import type { SessionRow } from '../../db/repos/sessions.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { formatSummary, type CompletionInfo } from '../../logs/summary.js';
import { callerIsClaude } from '../../agent-ops/approvals.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../../agent-ops/context.js';
import { detachOnSignals } from '../../agent-ops/follow-detach.js';
import {
  agentLabel,
  completionOf,
  findAgent,
  logPathOf,
  waitForAgents,
  type WaitResult,
} from '../../agent-ops/follow-agents.js';
import type { CommandContext } from '../cli/types.js';

type Finished = { s: SessionRow; info: CompletionInfo };

/** The named agents, each once (two ids may name the same session). */
function namedAgents(svc: AgentServices, inputs: string[]): SessionRow[] {
  const seen = new Set<string>();
  const sessions: SessionRow[] = [];
  for (const input of inputs) {
    const s = findAgent(svc, input);
    if (!seen.has(s.id)) sessions.push(s);
    seen.add(s.id);
  }
  return sessions;
}

/** Waits (Ctrl-C stops waiting: `detached` says why), naming permission requests on stderr as they come. */
async function waitNaming(
  ctx: CommandContext,
  svc: AgentServices,
  sessions: SessionRow[],
  seconds: number,
): Promise<{ r: WaitResult; detached: string | null }> {
  // Claude blocked in its Bash tool cannot answer while it waits: when it may answer, let it go.
  const mayAnswer = callerIsClaude(ctx.env) && svc.config['agents.approvals'] === 'parent';
  const detacher = detachOnSignals();
  try {
    const r = await waitForAgents(svc, sessions, {
      any: ctx.flags.any === true,
      timeoutMs: seconds * 1000,
      signal: detacher.signal,
      // Said as it happens; a parent Claude allowed to answer (agents.approvals: parent) is let go to do so.
      onApproval: (s, a) =>
        ctx.stderr.write(
          `${agentLabel(s)} needs approval ${a.id}: ${safeText(`${a.toolName}: ${a.summary}`)} — \`klaude approve ${shortId(s.id)}\` or \`klaude deny ${shortId(s.id)} --reason "…"\`\n`,
        ),
      stopOnApproval: mayAnswer,
    });
    return { r, detached: detacher.reason };
  } finally {
    detacher.dispose();
  }
}

/** Each finished agent's summary from its log, with what the session row knows and the log does not. */
async function summariesOf(svc: AgentServices, finished: SessionRow[]): Promise<Finished[]> {
  const infos = await Promise.all(finished.map(async (s) => ({ s, info: await completionOf(logPathOf(svc, s)) })));
  for (const x of infos) {
    if (!x.info.ended || x.info.status !== x.s.status) x.info.status = x.s.status;
    // Why it failed, in one line, even when the log does not say (a runtime that died).
    if (x.s.status === 'failed' && !x.info.error && x.s.error) x.info.error = x.s.error;
    // An interactive session has no agent log: its last text comes from the Stop hook.
    if (!x.info.finalText && x.s.lastText) x.info.finalText = x.s.lastText;
  }
  return infos;
}

function printJson(ctx: CommandContext, infos: Finished[], r: WaitResult): void {
  ctx.stdout.write(
    `${safeJson({
      finished: infos.map(({ s, info }) => ({ id: s.id, shortId: shortId(s.id), type: s.type, ...info })),
      running: r.running.map((s) => ({
        id: s.id,
        shortId: shortId(s.id),
        type: s.type,
        status: s.status,
        activity: s.activity,
      })),
      timedOut: r.timedOut,
    })}\n`,
  );
}

function printSummaries(
  ctx: CommandContext,
  svc: AgentServices,
  infos: Finished[],
  r: WaitResult,
  detached: string | null,
): void {
  for (const { s, info } of infos)
    ctx.stdout.write(
      formatSummary(info, {
        label: agentLabel(s),
        moreHint: `klaude logs ${shortId(s.id)}`,
        relativeTo: [s.worktreePath, svc.projectRoot],
      }),
    );
  if (r.running.length > 0 && (r.timedOut || detached || ctx.flags.any === true)) {
    ctx.stdout.write(
      `still running: ${r.running.map((s) => `${shortId(s.id)} (${s.status}${s.activity ? `: ${safeText(s.activity)}` : ''})`).join(', ')}\n`,
    );
  }
}

export async function run(ctx: CommandContext): Promise<number> {
  const timeout = ctx.flags.timeout as number | undefined;
  if (timeout !== undefined && !(timeout > 0)) throw usageError('--timeout needs a positive number of seconds');
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const sessions = namedAgents(svc, ctx.input);
    const seconds = timeout ?? svc.config['wait.timeoutSeconds'];
    const { r, detached } = await waitNaming(ctx, svc, sessions, seconds);
    const infos = await summariesOf(svc, r.finished);
    if (ctx.flags.json === true) printJson(ctx, infos, r);
    else printSummaries(ctx, svc, infos, r, detached);
    const again = `klaude wait ${r.running.map((s) => shortId(s.id)).join(' ')}`;
    if (r.timedOut) {
      throw new KlaudeError('E_TIMEOUT', `timed out after ${seconds}s; ${r.running.length} agent(s) still running`, {
        hint: `they keep working: run \`${again}\` again`,
      });
    }
    if (r.asking && r.asking.length > 0) {
      ctx.stdout.write(
        `waiting for your answer: ${r.asking.map((s) => shortId(s.id)).join(', ')}; answer, then \`${again}\`\n`,
      );
      return 3;
    }
    if (detached) {
      ctx.stdout.write(`stopped waiting (${detached}); to wait again: ${again}\n`);
      return 130;
    }
    return infos.every((x) => x.info.status === 'done') ? 0 : 1;
  } finally {
    await closeAgentServices(svc);
  }
}
