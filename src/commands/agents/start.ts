/**
 * `klaude start <type> "<prompt>" [count]`: start agents (through the running supervisor when
 * there is one, else directly), then either print their ids (-d) or follow them to the end.
 */
import { existsSync, readFileSync } from 'node:fs';
import { shortId } from '../../core/ids.js';
import { isPriorityName, priorityName, type PriorityName } from '../../core/priority.js';
import { controlRequest } from '../../control/client.js';
import { findLiveSupervisors } from '../../control/discovery.js';
import { locateSupervisor } from '../../control/locate.js';
import { budgetReached } from '../../db/repos/budgets.js';
import { queuePosition } from '../../db/repos/queue.js';
import { heldText } from '../../agent-ops/budget.js';
import { getSession, type SessionRow } from '../../db/repos/sessions.js';
import { isKlaudeError, KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../../agent-ops/context.js';
import { detachOnSignals, detachedHint } from '../../agent-ops/follow-detach.js';
import { agentLabel, followAgents, logPathOf } from '../../agent-ops/follow-agents.js';
import { callerIsClaude } from '../../agent-ops/approvals.js';
import { MAX_COUNT, startAgents } from '../../agent-ops/start.js';
import type { StartRequest } from '../../control/protocol.js';
import type { CommandContext } from '../cli/types.js';
import { ZONE_NAME } from '../../config/zones.js';
import { zoneOf } from '../../core/zone.js';

/** The supervisor to go through: ours (KLAUDE_SOCKET), a named one, or the only live one; null = none. */
async function supervisorFor(svc: AgentServices, ctx: CommandContext, required: boolean): Promise<string | null> {
  const instance = ctx.flags.instance as string | undefined;
  if (required || instance) return locateSupervisor({ home: svc.home, cwd: ctx.cwd, env: ctx.env, instance });
  if (ctx.env.KLAUDE_SOCKET && existsSync(ctx.env.KLAUDE_SOCKET)) return ctx.env.KLAUDE_SOCKET;
  const live = await findLiveSupervisors(svc.home, svc.projectHash, { env: ctx.env });
  return live.length === 1 ? live[0]!.socketPath : null;
}

/** An older supervisor without the `start` action. */
const isUnsupported = (e: KlaudeError): boolean => e.code === 'E_BAD_REQUEST' && /not supported/i.test(e.message);

function parseCount(arg: string | undefined): number {
  if (arg === undefined) return 1;
  const n = Number(arg);
  if (!/^\d+$/.test(arg) || n < 1 || n > MAX_COUNT)
    throw usageError(`count must be a whole number from 1 to ${MAX_COUNT} (got '${arg}')`);
  return n;
}

/**
 * Every agent the start reported must be in the database this command reads, and not already
 * failed: a supervisor whose DB was deleted under it, or a runtime that could not start, would
 * otherwise print an empty `follow: · wait:` line and exit 0.
 */
function verifyStarted(svc: AgentServices, ids: string[], via: string): SessionRow[] {
  const rows = ids.map((id) => ({ id, row: getSession(svc.db, id) }));
  const missing = rows.filter((r) => !r.row).map((r) => shortId(r.id));
  if (ids.length === 0 || missing.length) {
    throw new KlaudeError(
      'E_DB',
      ids.length === 0
        ? 'no agent was started'
        : `agent ${missing.join(' ')} was started ${via} but is not in ${svc.db.path}`,
      {
        hint:
          via === 'supervisor'
            ? 'the running klaude uses another (or a deleted) database: restart it, then start again'
            : 'check `klaude logs` and try again',
      },
    );
  }
  const sessions = rows.map((r) => r.row!);
  const failed = sessions.filter((s) => s.status === 'failed');
  if (failed.length) {
    throw new KlaudeError('E_IO', `agent ${failed.map((s) => shortId(s.id)).join(' ')} failed to start`, {
      hint: `klaude logs ${shortId(failed[0]!.id)}`,
    });
  }
  return sessions;
}

/** `klaude start`'s arguments, checked. */
interface StartArgs {
  req: StartRequest;
  checkout: boolean;
  /** With -c: switch as soon as the conversation has begun. */
  now: boolean;
  json: boolean;
  detach: boolean;
}

/** The bytes of a prompt the supervisor's socket takes in one request (its frames are ≤ 1 MiB). */
const SOCKET_PROMPT_MAX = 512 * 1024;

/**
 * The prompt: the second argument, `-` for stdin, or --prompt-file (then the second argument, if
 * any, is the count). Read whole: it goes to the runtime on its stdin, so no argument limit applies.
 */
async function readPrompt(ctx: CommandContext): Promise<{ prompt: string; rest: string[] }> {
  const [, ...args] = ctx.input;
  const file = ctx.flags.promptFile as string | undefined;
  let prompt: string;
  let rest: string[];
  if (file !== undefined) {
    if (args.length > 1) throw usageError(`--prompt-file gives the prompt: '${args[0]}' is not a count`);
    try {
      prompt = file === '-' ? await readStdin(ctx) : readFileSync(file, 'utf8');
    } catch (e) {
      if (isKlaudeError(e)) throw e;
      throw new KlaudeError('E_IO', `cannot read the prompt file ${file}: ${(e as Error).message}`);
    }
    rest = args;
  } else if (args.length === 0 && typeof ctx.flags.skill === 'string') {
    // A skill without arguments.
    prompt = '';
    rest = [];
  } else {
    if (args.length === 0)
      throw usageError(
        'missing the prompt',
        'klaude start <type> "<prompt>" (or `-` to read it from stdin, or --prompt-file <file>)',
      );
    prompt = args[0] === '-' ? await readStdin(ctx) : args[0]!;
    rest = args.slice(1);
  }
  // With a skill the prompt is its arguments, which may be none.
  if (prompt.trim() === '' && typeof ctx.flags.skill !== 'string') throw usageError('the prompt is empty');
  return { prompt, rest };
}

async function readStdin(ctx: CommandContext): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY)
    throw usageError(
      '`-` reads the prompt from stdin, which is a terminal',
      'pipe it in: echo "…" | klaude start <type> - -d',
    );
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function parseStartArgs(ctx: CommandContext, prompt: string, rest: string[]): StartArgs {
  const [type] = ctx.input as [string];
  const [countArg] = rest;
  if (!/^[\w.-]+$/.test(type))
    throw usageError(
      `'${type}' is not an agent type name`,
      'klaude start <type> "<prompt>" — `klaude agents` lists types',
    );
  const count = parseCount(countArg);
  const checkout = ctx.flags.checkout === true;
  const json = ctx.flags.json === true;
  const detach = ctx.flags.detach === true || checkout || json;
  if (checkout && count > 1) throw usageError('--checkout starts one agent (count must be 1)');
  const now = ctx.flags.now === true;
  if (now && !checkout) throw usageError('--now goes with -c/--checkout');
  const req: StartRequest = {
    type,
    prompt,
    count,
    runtime: ctx.flags.runtime as string | undefined,
    model: ctx.flags.model as string | undefined,
    share: ctx.flags.share === true,
    worktree: ctx.flags.worktree === true,
    parentId: ctx.env.KLAUDE_SESSION_ID || null,
    cwd: ctx.cwd,
    ...(typeof ctx.flags.budget === 'number' ? { budgetUsd: budgetFlag(ctx.flags.budget) } : {}),
    ...(typeof ctx.flags.sandbox === 'boolean'
      ? { sandbox: ctx.flags.sandbox ? ('on' as const) : ('off' as const) }
      : {}),
    ...(ctx.flags.bypassWithoutSandbox === true ? { bypassWithoutSandbox: true } : {}),
    ...(typeof ctx.flags.skill === 'string' ? { skill: skillFlag(ctx.flags.skill) } : {}),
    ...(ctx.flags.priority !== undefined ? { priority: priorityFlag(ctx.flags.priority) } : {}),
  };
  return { req, checkout, now, json, detach };
}

function skillFlag(name: string): string {
  const n = name.trim().replace(/^\//, ''); // `/deploy`, as typed in claude, is the skill deploy
  if (!/^[\w.:-]+$/.test(n))
    throw usageError(`'${name}' is not a skill name`, '`klaude agents --skills` lists the skills');
  return n;
}

/** `--priority high|normal|low` (also `klaude queue move --priority`). */
export function priorityFlag(v: unknown): PriorityName {
  if (isPriorityName(v)) return v;
  throw usageError(
    `--priority is high, normal or low (got ${JSON.stringify(v)})`,
    'klaude start <type> "…" --priority high',
  );
}

function budgetFlag(usd: number): number {
  if (!(usd > 0)) throw usageError(`--budget must be an amount in USD above 0 (got ${usd})`);
  return usd;
}

interface Started {
  ids: string[];
  notes: string[];
  /** 'supervisor' or 'directly'. */
  via: string;
}

/** Through the supervisor when one runs (--checkout needs one), else the runtimes started from here. */
async function startThroughSupervisor(svc: AgentServices, ctx: CommandContext, a: StartArgs): Promise<Started> {
  const { req, checkout, now } = a;
  const large = Buffer.byteLength(req.prompt) > SOCKET_PROMPT_MAX;
  if (large && checkout) {
    throw usageError(
      `a prompt over ${SOCKET_PROMPT_MAX / 1024} KiB cannot go through the supervisor, which --checkout needs`,
      'start it with -d, then `klaude checkout <id>`',
    );
  }
  // Too large for the socket: the runtimes are started from here, the same way.
  const socket = large ? null : await supervisorFor(svc, ctx, checkout);
  try {
    if (!socket) throw new KlaudeError('E_NO_SUPERVISOR', 'no supervisor');
    const res = await controlRequest(
      socket,
      'start',
      {
        type: req.type,
        prompt: req.prompt,
        count: req.count,
        ...(req.runtime ? { runtime: req.runtime } : {}),
        ...(req.model ? { model: req.model } : {}),
        ...(req.share ? { share: true } : {}),
        ...(req.worktree ? { worktree: true } : {}),
        ...(checkout ? { checkout: true } : {}),
        ...(now ? { checkoutNow: true } : {}),
        ...(req.parentId ? { parentId: req.parentId } : {}),
        ...(req.budgetUsd ? { budgetUsd: req.budgetUsd } : {}),
        ...(req.sandbox ? { sandbox: req.sandbox } : {}),
        ...(req.bypassWithoutSandbox ? { bypassWithoutSandbox: true } : {}),
        ...(req.skill ? { skill: req.skill } : {}),
        ...(req.priority ? { priority: req.priority } : {}),
        cwd: ctx.cwd,
      },
      { timeoutMs: 30_000 },
    );
    return { ids: res.sessionIds, notes: res.notes ?? [], via: 'supervisor' };
  } catch (e) {
    // No supervisor (or it went away): start the runtimes from here, the same way.
    if (checkout || !isKlaudeError(e) || !(e.code === 'E_NO_SUPERVISOR' || isUnsupported(e))) throw e;
    const out = await startAgents(svc, req);
    return { ids: out.sessions.map((s) => s.id), notes: out.notes, via: 'directly' };
  }
}

function printJson(ctx: CommandContext, svc: AgentServices, sessions: SessionRow[], started: Started): void {
  const rows = sessions.map((s) => ({
    id: s.id,
    shortId: shortId(s.id),
    type: s.type,
    runtime: s.runtime,
    parentId: s.parentId,
    nativeSessionId: s.nativeSessionId,
    logPath: logPathOf(svc, s),
    status: s.status,
    ...(s.status === 'queued' ? { queuePosition: queuePosition(svc.db, s.id) } : {}),
    priority: priorityName(s.priority),
    worktree: s.worktreePath ? { path: s.worktreePath, branch: s.worktreeBranch, base: s.worktreeBase } : null,
    via: started.via,
  }));
  const { notes } = started;
  ctx.stdout.write(`${safeJson({ sessions: rows, ...(notes.length ? { notes } : {}) })}\n`);
}

/** A `started …` line per agent: its worktree, and its place when it waits in the run queue. */
function printStarted(ctx: CommandContext, svc: AgentServices, sessions: SessionRow[]): void {
  for (const s of sessions) {
    const pos = s.status === 'queued' ? queuePosition(svc.db, s.id) : 0;
    const over = pos > 0 ? budgetReached(svc.db, s.id) : null;
    const when = over ? heldText(over) : 'starts when a run slot frees';
    const level = s.priority ? ` (${priorityName(s.priority)} priority)` : '';
    const wait = pos > 0 ? `: queued #${pos}${level}, ${when} (\`klaude interrupt ${shortId(s.id)}\` cancels it)` : '';
    const zone = zoneOf(s);
    const wt = zone
      ? ` in zone ${zone.name}${s.worktreeBranch ? ` (branch ${s.worktreeBranch} over there)` : ''}`
      : s.worktreePath
        ? ` in worktree ${s.worktreePath} (branch ${s.worktreeBranch})`
        : '';
    ctx.stdout.write(`started ${shortId(s.id)} (${s.type}, ${s.runtime})${wt}${wait}\n`);
  }
}

/**
 * Attached: the agents' output until they end (exit 0 all done, else 1); Ctrl-C only detaches.
 * Run by Claude (its Bash tool), a permission request ends the follow as `klaude wait` does (exit
 * 3, the request named): blocked in the tool, Claude could neither answer nor tell the person.
 */
export async function followStarted(ctx: CommandContext, svc: AgentServices, sessions: SessionRow[]): Promise<number> {
  const shorts = sessions.map((s) => shortId(s.id)).join(' ');
  ctx.stdout.write(`following ${sessions.length > 1 ? 'them' : 'it'} (Ctrl-C detaches; the agent keeps running)\n`);
  const detacher = detachOnSignals();
  const asking: SessionRow[] = [];
  const onApproval = callerIsClaude(ctx.env)
    ? (s: SessionRow, e: { tool: string; summary?: string; approvalId?: number }): void => {
        ctx.stderr.write(
          `${agentLabel(s)} needs approval${e.approvalId !== undefined ? ` ${e.approvalId}` : ''}: ${safeText(`${e.tool}: ${e.summary ?? ''}`)} — \`klaude approve ${shortId(s.id)}\` or \`klaude deny ${shortId(s.id)} --reason "…"\`\n`,
        );
        asking.push(s);
        detacher.detach('approval');
      }
    : undefined;
  try {
    const results = await followAgents(
      svc,
      sessions.map((s) => ({ session: s })),
      ctx.stdout,
      { signal: detacher.signal, ...(onApproval ? { onApproval } : {}) },
    );
    const running = results.filter((r) => r.info === null).map((r) => r.session);
    if (asking.length > 0) {
      const who =
        svc.config['agents.approvals'] === 'parent'
          ? 'answer it'
          : 'tell the person: they answer it in the klaude dashboard or with `klaude approve`/`deny` in their shell (agents.approvals: person)';
      ctx.stdout.write(
        `\nwaiting for an answer: ${asking.map((s) => shortId(s.id)).join(', ')}; ${who}, then \`klaude wait ${(running.length ? running : sessions).map((s) => shortId(s.id)).join(' ')}\`\n`,
      );
      return 3;
    }
    if (detacher.signal.aborted) {
      ctx.stdout.write(
        `\ndetached (${detacher.reason}); ${running.map((s) => shortId(s.id)).join(' ') || shorts} keep${running.length === 1 ? 's' : ''} running.\n${detachedHint(running.length ? running : sessions)}\n`,
      );
      return 0;
    }
    return results.every((r) => r.info?.status === 'done') ? 0 : 1;
  } finally {
    detacher.dispose();
  }
}

/** `--zone <name>`: checked before anything is made (the zone's own config is checked by the start). */
function zoneFlag(ctx: CommandContext, a: StartArgs): string | null {
  const zone = ctx.flags.zone as string | undefined;
  if (zone === undefined) return null;
  if (!ZONE_NAME.test(zone)) throw usageError(`'${zone}' is not a zone name`, 'klaude zone list shows the zones');
  if (a.checkout) throw usageError('--checkout switches the foreground here: it does not go with --zone');
  return zone;
}

/** In a zone: its link starts them over there (zones/start.ts). */
async function startZoned(svc: AgentServices, a: StartArgs, zone: string): Promise<Started> {
  const { startInZone } = await import('../../zones/zone-start.js');
  const out = await startInZone(svc, a.req, zone);
  return { ids: out.sessions.map((s) => s.id), notes: out.notes, via: `zone ${zone}` };
}

export async function run(ctx: CommandContext): Promise<number> {
  const { prompt, rest } = await readPrompt(ctx);
  const args = parseStartArgs(ctx, prompt, rest);
  const zone = zoneFlag(ctx, args);
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const started = zone ? await startZoned(svc, args, zone) : await startThroughSupervisor(svc, ctx, args);
    const sessions = verifyStarted(svc, started.ids, started.via);
    for (const n of started.notes) ctx.stderr.write(`klaude: note: ${safeText(n)}\n`);

    if (args.json) {
      printJson(ctx, svc, sessions, started);
      return 0;
    }
    printStarted(ctx, svc, sessions);
    if (args.checkout) {
      const shorts = sessions.map((s) => shortId(s.id)).join(' ');
      ctx.stdout.write(
        args.now
          ? `switching to ${shorts} now: the foreground Claude takes over its conversation as soon as it has begun (its first turn is stopped)\n`
          : `switching to ${shorts} when its turn ends: the foreground Claude then continues its conversation\n`,
      );
      return 0;
    }
    if (args.detach) {
      ctx.stdout.write(`${detachedHint(sessions)}\n`);
      return 0;
    }
    return await followStarted(ctx, svc, sessions);
  } finally {
    await closeAgentServices(svc);
  }
}
