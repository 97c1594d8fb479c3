/**
 * `klaude review <id> [--by <runtime|type>…] [--diff|--output] [--focus "…"] [-d] [--json]`: start
 * reviewer agents on a session's work and follow them; `--show` prints the findings of its reviews,
 * `--send` gives them to the session as a message.
 */
import { shortId } from '../../core/ids.js';
import { openDb } from '../../db/client.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { reviewById, reviewsOf, type ReviewView } from '../../db/repos/reviews.js';
import { usageError } from '../../lib/errors.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../../agent-ops/context.js';
import { detachedHint } from '../../agent-ops/follow-detach.js';
import { forkPlace } from '../../agent-ops/fork.js';
import { sendReviews, startReviews, type ReviewOptions } from '../../agent-ops/reviewers.js';
import { klaudeHome } from '../../config/paths.js';
import type { SessionRow } from '../../db/repos/sessions.js';
import { findingLines, reviewHeading } from './review-lines.js';
import { listingWidth } from '../sessions/sessions-table.js';
import { followStarted } from '../agents/start.js';
import type { CommandContext } from '../cli/types.js';

type Mode = 'start' | 'show' | 'send';

/** The flags, checked against each other. */
function parseReviewFlags(ctx: CommandContext): { mode: Mode; opts: ReviewOptions } {
  const f = ctx.flags;
  const by = ((f.by as string[] | undefined) ?? [])
    .flatMap((b) => b.split(','))
    .map((b) => b.trim())
    .filter(Boolean);
  for (const b of by) if (!/^[\w.:-]+$/.test(b)) throw usageError(`--by '${b}' is not a runtime or an agent type name`);
  if (f.diff === true && f.output === true) throw usageError('--diff and --output: choose one');
  const focus = typeof f.focus === 'string' && f.focus.trim() ? f.focus.trim() : null;
  const mode: Mode = f.send === true ? 'send' : f.show === true ? 'show' : 'start';
  if (f.send === true && f.show === true) throw usageError('--send and --show: choose one');
  if (mode !== 'start' && (f.diff === true || f.output === true || focus || f.detach === true))
    throw usageError(`--${mode} starts no review: --diff, --output, --focus and -d go with a new review`);
  if (mode === 'show' && by.length)
    throw usageError('--show prints every review of the session (--by goes with a new review or --send)');
  const subject = f.diff === true ? 'diff' : f.output === true ? 'output' : undefined;
  return { mode, opts: { by, focus, ...(subject ? { subject } : {}) } };
}

export async function run(ctx: CommandContext): Promise<number> {
  const { mode, opts } = parseReviewFlags(ctx);
  const found = openDb(klaudeHome(ctx.env));
  let target: SessionRow;
  let projectRoot: string;
  try {
    target = resolveSession(found, ctx.input[0]!);
    projectRoot = forkPlace(found, target).projectRoot;
  } finally {
    found.close();
  }
  // The session's project, whichever directory the command runs in.
  const svc = openAgentServices({ env: ctx.env, cwd: projectRoot });
  try {
    if (mode === 'show') return show(ctx, svc, target);
    if (mode === 'send') return await send(ctx, svc, target, opts.by);
    return await start(ctx, svc, target, opts);
  } finally {
    await closeAgentServices(svc);
  }
}

/** The reviews to print for a session: its own when it is a review, else those of it. */
function reviewsFor(svc: AgentServices, s: SessionRow): ReviewView[] {
  if (s.reviewOf) {
    const r = reviewById(svc.db, s.id);
    return r ? [r] : [];
  }
  return reviewsOf(svc.db, s.id);
}

function printReviews(ctx: CommandContext, reviews: ReviewView[]): void {
  const width = listingWidth(ctx);
  for (const r of reviews) {
    ctx.stdout.write(`${reviewHeading(r)}\n`);
    const lines = findingLines(r, { indent: '  ', width, wrap: true });
    if (lines.length) ctx.stdout.write(`${lines.join('\n')}\n`);
  }
}

function show(ctx: CommandContext, svc: AgentServices, s: SessionRow): number {
  const reviews = reviewsFor(svc, s);
  if (ctx.flags.json === true) {
    ctx.stdout.write(`${safeJson({ sessionId: s.reviewOf ?? s.id, reviews })}\n`);
    return 0;
  }
  if (reviews.length === 0) {
    ctx.stdout.write(`${shortId(s.id)} has no review (\`klaude review ${shortId(s.id)}\` starts one)\n`);
    return 0;
  }
  printReviews(ctx, reviews);
  const origin = shortId(s.reviewOf ?? s.id);
  if (reviews.some((r) => r.findings !== null && r.sentAt === null))
    ctx.stdout.write(`\`klaude review ${origin} --send\` gives the findings to ${origin}\n`);
  return 0;
}

async function send(ctx: CommandContext, svc: AgentServices, target: SessionRow, by: string[]): Promise<number> {
  const r = await sendReviews(svc, target, by);
  const o = shortId(r.origin.id);
  if (ctx.flags.json === true) {
    const reviews = r.reviews.map((x) => x.sessionId);
    ctx.stdout.write(
      `${safeJson({ sessionId: r.origin.id, reviews, delivered: r.delivery.delivered, message: r.text })}\n`,
    );
    return 0;
  }
  const n = r.reviews.reduce((k, x) => k + (x.findings?.length ?? 0), 0);
  const from = r.reviews.map((x) => shortId(x.sessionId)).join(', ');
  const how =
    r.delivery.delivered === 'stdin' || r.delivery.delivered === 'queued'
      ? 'it gets them when its current turn ends'
      : r.delivery.delivered === 'recovering'
        ? 'they go with the resume prompt of its recovery'
        : `it had stopped (${r.delivery.previousStatus ?? r.origin.status}) and was resumed with them`;
  ctx.stdout.write(`sent ${n} finding${n === 1 ? '' : 's'} of ${from} to ${o}: ${how}\n${detachedHint([r.origin])}\n`);
  return 0;
}

async function start(
  ctx: CommandContext,
  svc: AgentServices,
  origin: SessionRow,
  opts: ReviewOptions,
): Promise<number> {
  const out = await startReviews(svc, origin, opts);
  for (const n of out.notes) ctx.stderr.write(`klaude: note: ${safeText(n)}\n`);
  const o = shortId(origin.id);
  if (ctx.flags.json === true) {
    const reviewers = out.reviewers.map((s) => ({
      id: s.id,
      shortId: shortId(s.id),
      type: s.type,
      runtime: s.runtime,
      status: s.status,
    }));
    ctx.stdout.write(`${safeJson({ sessionId: origin.id, subject: out.subject, reviewers })}\n`);
    return 0;
  }
  const what = out.subject === 'diff' ? 'its diff' : 'its final answer';
  for (const s of out.reviewers)
    ctx.stdout.write(
      `started ${shortId(s.id)} (${s.type}, ${s.runtime}): review of ${o}'s ${what.slice(4)}, read-only\n`,
    );
  if (ctx.flags.detach === true) {
    ctx.stdout.write(`${detachedHint(out.reviewers)}; \`klaude review ${o} --show\` prints the findings\n`);
    return 0;
  }
  const code = await followStarted(ctx, svc, out.reviewers);
  const reviews = out.reviewers.map((s) => reviewById(svc.db, s.id)).filter((r): r is ReviewView => r !== undefined);
  if (reviews.some((r) => r.findings !== null || r.error !== null)) {
    ctx.stdout.write('\n');
    printReviews(ctx, reviews);
    if (reviews.some((r) => r.findings?.length))
      ctx.stdout.write(`\`klaude review ${o} --send\` gives the findings to ${o}\n`);
  }
  return code;
}
