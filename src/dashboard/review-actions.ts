/**
 * The dashboard's review actions (R pane: S sends a reviewer's findings, + starts another review),
 * done as `klaude review` does them, in the session's own project (another project's through its
 * own agent services). The dashboard is the person: no Claude marks in the environment.
 */
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { sendReviews, startReviews } from '../agent-ops/reviewers.js';
import { shortId } from '../core/ids.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { agentServicesOf } from '../supervisor/agent-handlers.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { DashboardActions } from '../ui/deps.js';
import { otherProjectOf } from './other-project.js';

type Acts = Pick<DashboardActions, 'sendReview' | 'startReview'>;

/** Run `fn` on the session with its project's services. */
async function withSession<T>(
  ctx: SupervisorContext,
  id: string,
  fn: (svc: AgentServices, s: SessionRow) => Promise<T>,
): Promise<T> {
  const other = otherProjectOf(ctx, id);
  const base = agentServicesOf({ ctx });
  const svc = other
    ? openAgentServices({ env: { ...ctx.env, CLAUDECODE: undefined }, cwd: other.root, inv: ctx.inv })
    : { ...base, env: { ...base.env, CLAUDECODE: undefined } };
  try {
    const s = getSession(svc.db, id);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `no session ${shortId(id)}`);
    return await fn(svc, s);
  } finally {
    if (other) await closeAgentServices(svc);
  }
}

export function reviewActions(ctx: SupervisorContext, refresh: () => void): Acts {
  const after = <T>(p: Promise<T>): Promise<T> => p.finally(refresh);
  return {
    sendReview: (reviewerId) =>
      after(
        withSession(ctx, reviewerId, async (svc, s) => {
          const r = await sendReviews(svc, s);
          return {
            delivered: r.delivery.delivered,
            findings: r.reviews.reduce((n, x) => n + (x.findings?.length ?? 0), 0),
          };
        }),
      ),
    startReview: (id) =>
      after(
        withSession(ctx, id, async (svc, s) => {
          const r = await startReviews(svc, s, { by: [], focus: null });
          const runtime = [...new Set(r.reviewers.map((x) => x.runtime))].join(', ');
          return { sessionIds: r.reviewers.map((x) => x.id), runtime, notes: r.notes };
        }),
      ),
  };
}
