import { shortId } from '../core/ids.js';
import { zoneOf } from '../core/zone.js';
import { latestLink } from '../db/repos/links.js';
import { resolveSession } from '../db/repos/resolve.js';
import { listSessions, type SessionRow } from '../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { adoptConversation } from './adopt.js';
import type { SupervisorContext } from './context.js';
import { assertNotForegroundElsewhere } from './launch-records.js';

/**
 * `klaude --resume-last` / `klaude --resume <id>`: the session this supervisor starts
 * on instead of a fresh root. 'last' = the newest root TUI session of the project that
 * has a Claude session and isn't open in another klaude.
 */
export function pickResumeSession(
  ctx: SupervisorContext,
  which: string,
): { session: SessionRow; claudeSessionId: string } {
  const claudeIdOf = (s: SessionRow): string | undefined =>
    s.nativeSessionId ?? latestLink(ctx.db, s.id)?.claudeSessionId;
  if (which !== 'last') {
    const s = resolveOrAdopt(ctx, which);
    const zone = zoneOf(s);
    if (zone)
      throw new KlaudeError('E_USAGE', `${shortId(s.id)} runs in zone ${zone.name}: its conversation is over there`, {
        hint: `\`klaude talk ${shortId(s.id)}\` talks to it there; \`klaude checkout ${shortId(s.id)}\` inside klaude brings it here`,
      });
    const id = claudeIdOf(s);
    if (!id || s.runtime !== 'claude') {
      throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${shortId(s.id)} has no Claude session to resume`, {
        hint: 'start fresh with `klaude`',
      });
    }
    assertNotForegroundElsewhere(ctx, s.id);
    return { session: s, claudeSessionId: id };
  }
  const roots = listSessions(ctx.db, { projectId: ctx.projectHash })
    .filter((s) => s.parentId === null && s.type === 'tui')
    .sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt);
  for (const s of roots) {
    const id = claudeIdOf(s);
    if (!id) continue;
    try {
      assertNotForegroundElsewhere(ctx, s.id);
    } catch {
      continue;
    }
    return { session: s, claudeSessionId: id };
  }
  throw new KlaudeError('E_SESSION_NOT_FOUND', 'no earlier klaude session to resume in this project', {
    hint: 'start a fresh one with `klaude`',
  });
}

/** A klaude or Claude id of this project; else a Claude conversation of this directory klaude never recorded, adopted. */
function resolveOrAdopt(ctx: SupervisorContext, which: string): SessionRow {
  try {
    return resolveSession(ctx.db, which, { projectId: ctx.projectHash });
  } catch (e) {
    if (!isKlaudeError(e) || e.code !== 'E_SESSION_NOT_FOUND') throw e;
    const adopted = adoptConversation(ctx, which);
    if (!adopted) throw e;
    ctx.log.info('adopted a Claude conversation', { session: shortId(adopted.id), claude: adopted.nativeSessionId });
    return adopted;
  }
}
