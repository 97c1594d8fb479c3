/**
 * The dashboard's actions on a row of another project (all projects shown: `klaude ui --all`, P).
 * They act in that project, as `klaude <command>` run in its root would: its agent services, its
 * root for diffs and PTY sessions. Opening (checkout) is refused: this dashboard's foreground
 * claude runs in this project, and another project's conversation resumes only in its own cwd.
 */
import { answerRequest, localSettingsPath } from '../agent-ops/approvals.js';
import { archive, archiveNote } from '../agent-ops/archive.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { deliverMessage, interruptAgent } from '../agent-ops/message.js';
import { shortId } from '../core/ids.js';
import { getProject } from '../db/repos/projects.js';
import { getSession } from '../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { DashboardActions } from '../ui/deps.js';

/** Where a session is: null when it is this dashboard's project (or gone: the caller's path says so). */
export function otherProjectOf(ctx: SupervisorContext, sessionId: string): { id: string; root: string } | null {
  const s = getSession(ctx.db, sessionId);
  if (!s || s.projectId === ctx.projectHash) return null;
  const p = getProject(ctx.db, s.projectId);
  if (!p) throw new KlaudeError('E_NO_PROJECT', `${shortId(sessionId)}'s project is not recorded`);
  return { id: p.id, root: p.rootPath };
}

/** Run `fn` with that project's services (the dashboard is the person: no Claude marks). */
async function inProject<T>(
  ctx: SupervisorContext,
  root: string,
  fn: (svc: AgentServices) => Promise<T> | T,
): Promise<T> {
  const svc = openAgentServices({ env: { ...ctx.env, CLAUDECODE: undefined }, cwd: root, inv: ctx.inv });
  try {
    return await fn(svc);
  } finally {
    await closeAgentServices(svc);
  }
}

export function refuseOpen(sessionId: string, root: string): KlaudeError {
  return new KlaudeError(
    'E_USAGE',
    `${shortId(sessionId)} belongs to ${root}: this dashboard's claude can't check it out from here`,
    { hint: `t talks to it in a PTY; or run \`klaude ui\` in ${root}` },
  );
}

type Acts = Pick<DashboardActions, 'message' | 'interrupt' | 'answer' | 'archive' | 'rulePath'>;

/** The actions that take a session of another project, done in that project. */
export function otherProjectActions(ctx: SupervisorContext, root: string): Acts {
  return {
    message: (id, prompt) =>
      inProject(ctx, root, async (svc) => ({ delivered: (await deliverMessage(svc, id, prompt)).delivered })),
    interrupt: (ids) =>
      inProject(ctx, root, async (svc) => {
        const results: { sessionId: string; ok: boolean; code?: string }[] = [];
        const dropped: string[] = [];
        for (const id of ids) {
          try {
            dropped.push(...(await interruptAgent(svc, id)).dropped);
            results.push({ sessionId: id, ok: true });
          } catch (e) {
            results.push({ sessionId: id, ok: false, code: isKlaudeError(e) ? e.code : 'E_INTERNAL' });
          }
        }
        return { results, ...(dropped.length ? { dropped } : {}) };
      }),
    answer: (id, a) => inProject(ctx, root, (svc) => answerRequest(svc, id, a)),
    archive: (ids, archived) =>
      inProject(ctx, root, async (svc) => {
        const note = archiveNote(await archive(svc, ids, { restore: !archived }));
        return note ? { note } : undefined;
      }),
    rulePath: (id) => {
      const svc = openAgentServices({ env: ctx.env, cwd: root, inv: ctx.inv });
      try {
        return localSettingsPath(svc, id);
      } finally {
        svc.db.close();
      }
    },
  };
}
