/**
 * `klaude approve <id> [--always] [--request <n>]` and (deny.ts) `klaude deny <id> [--reason …]`:
 * answer an agent's pending permission request (the oldest unless --request names one). The answer
 * goes to the agent's runtime, which replies to its CLI; see src/agent-ops/approvals.ts.
 */
import { shortId } from '../../core/ids.js';
import { answerRequest, localSettingsPath, pendingRequest } from '../../agent-ops/approvals.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { findAgent } from '../../agent-ops/follow-agents.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';

export async function answer(ctx: CommandContext, behavior: 'allow' | 'deny'): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const s = findAgent(svc, ctx.input[0]!);
    const request = typeof ctx.flags.request === 'string' ? ctx.flags.request : undefined;
    const always = behavior === 'allow' && ctx.flags.always === true;
    const json = ctx.flags.json === true;
    const row = pendingRequest(svc, s.id, request);
    if (always && !json) {
      // Said before it happens: where the rule is written.
      ctx.stdout.write(
        row.suggestedRule
          ? `allow always: the rule ${safeText(row.suggestedRule)} goes into ${safeText(localSettingsPath(svc, s.id))}\n`
          : 'allow always: claude suggested no rule for this request; allowing it once\n',
      );
    }
    const reason = typeof ctx.flags.reason === 'string' ? ctx.flags.reason : undefined;
    const r = await answerRequest(svc, s.id, {
      request: String(row.id),
      behavior,
      always,
      ...(reason ? { message: reason } : {}),
    });
    if (json) {
      ctx.stdout.write(`${safeJson({ sessionId: s.id, behavior, always, ...r })}\n`);
    } else {
      const what = safeText(`${r.tool}${r.summary ? `: ${r.summary}` : ''}`);
      const verb = behavior === 'allow' ? (always && r.rule ? 'allowed always' : 'allowed') : 'denied';
      ctx.stdout.write(
        `${verb} ${shortId(s.id)} request ${r.approvalId}: ${what}${reason && behavior === 'deny' ? ` (reason: ${reason})` : ''}\n`,
      );
      if (r.pending > 0) ctx.stdout.write(`${r.pending} more request(s) of ${shortId(s.id)} pending\n`);
    }
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

export function run(ctx: CommandContext): Promise<number> {
  return answer(ctx, 'allow');
}
