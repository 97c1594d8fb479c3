/**
 * `klaude review`: reviewer agents on another agent's work, and its findings sent back to it.
 *
 * A reviewer is an agent like any other (its own session, log and runtime), started beside its
 * origin (same parent, same project), in the origin's directory (a worktree agent's worktree, so
 * it reads the changed files), read-only by its CLI's own means (agent-types/read-only.ts) and
 * recorded as `review_of` the origin with a `reviews` row. Its first prompt holds the work
 * (review-prompt.ts); when its run ends the runtime reads the findings from its answer
 * (runtime/review-result.ts). By default a review goes to another runtime than the origin's, the
 * first one installed: codex (then gemini, opencode, cursor) reviews claude's work, claude reviews
 * the others'.
 */
import { getAdapter } from '../adapters/registry.js';
import { loadAgentDefinitions } from '../agent-types/definitions.js';
import { RUNTIMES, type RuntimeName } from '../config/schema.js';
import { sessionLogPath } from '../config/paths.js';
import type { StartRequest } from '../control/protocol.js';
import { shortId } from '../core/ids.js';
import { reviewerName, reviewMessage, type ReviewSubject } from '../core/findings.js';
import { isTerminal } from '../core/status.js';
import { markReviewsSent, reviewById, reviewsOf, type ReviewView } from '../db/repos/reviews.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { sessionDiff, type SessionDiff } from '../git/session-diff.js';
import { zoneOf } from '../core/zone.js';
import { askZone } from '../zone-client/ask-link.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { readAllEvents } from '../logs/reader.js';
import { collectCompletionInfo } from '../logs/summary.js';
import type { AgentServices } from './context.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { forkPlace } from './fork.js';
import { deliverMessage, zoneAccess, type Delivery } from './message.js';
import { reviewPrompt, type ReviewMaterial } from './review-prompt.js';
import { startAgents } from './start.js';

export interface ReviewOptions {
  /** Runtimes or agent types, one reviewer each; empty: the default reviewer. */
  by: string[];
  /** What to review; absent: the diff when the origin changed files, else its final answer. */
  subject?: ReviewSubject;
  focus: string | null;
}

export interface StartedReviews {
  origin: SessionRow;
  subject: ReviewSubject;
  reviewers: SessionRow[];
  notes: string[];
}

/** Who reviews a `from` agent's work when nobody says: another CLI, the first installed. */
const OTHERS: Record<RuntimeName, RuntimeName[]> = {
  claude: ['codex', 'gemini', 'opencode', 'cursor'],
  codex: ['claude'],
  gemini: ['claude'],
  opencode: ['claude'],
  cursor: ['claude'],
};

async function installed(svc: AgentServices, runtime: RuntimeName): Promise<boolean> {
  try {
    (await getAdapter(runtime)).resolveBinary(svc.config, svc.env);
    return true;
  } catch {
    return false;
  }
}

/** A reviewer to start: its agent type and, when the person or the default chose one, its runtime. */
interface Reviewer {
  type: string;
  runtime?: RuntimeName;
}

/** `reviewer` when the project or the person defines such an agent type, else `general`. */
function reviewerType(cwd: string, env: NodeJS.ProcessEnv): { type: string; runtime?: RuntimeName } {
  const def = loadAgentDefinitions({ cwd, env }).agents.find((a) => a.name === 'reviewer');
  return def ? { type: 'reviewer', ...(def.runtime ? { runtime: def.runtime } : {}) } : { type: 'general' };
}

async function chooseReviewers(
  svc: AgentServices,
  origin: SessionRow,
  o: ReviewOptions,
  cwd: string,
  notes: string[],
): Promise<Reviewer[]> {
  const base = reviewerType(cwd, svc.env);
  if (o.by.length > 0) {
    return o.by.map((b) =>
      (RUNTIMES as readonly string[]).includes(b) ? { type: base.type, runtime: b as RuntimeName } : { type: b },
    );
  }
  if (base.runtime) return [{ type: base.type, runtime: base.runtime }]; // the person's `reviewer` says where it runs
  for (const r of OTHERS[origin.runtime]) if (await installed(svc, r)) return [{ type: base.type, runtime: r }];
  notes.push(
    `no other runtime is installed (${OTHERS[origin.runtime].join(', ')}): ${origin.runtime} reviews ${origin.runtime}'s work`,
  );
  return [{ type: base.type, runtime: origin.runtime }];
}

const who = (s: SessionRow): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)} (${s.runtime})`;

/** The origin's diff as review material, or null when it changed nothing (or is not in git). */
async function diffMaterial(
  svc: AgentServices,
  origin: SessionRow,
  place: { projectRoot: string; cwd: string },
  explicit: boolean,
): Promise<Omit<ReviewMaterial, 'task' | 'focus' | 'origin'> | null> {
  const logPath = origin.logPath ?? sessionLogPath(svc.home, origin.projectId, origin.id, svc.config['logs.dir']);
  const zone = zoneOf(origin);
  let d: SessionDiff;
  try {
    // A zone's agent's work is in its worktree over there: its diff is taken there, exact.
    d = zone
      ? await askZone<SessionDiff>(zoneAccess(svc, zone.name), { op: 'diff', sid: origin.id, patch: true }, 120_000)
      : await sessionDiff(origin, { projectRoot: place.projectRoot, logPath, patch: true });
  } catch (e) {
    if (explicit || !isKlaudeError(e)) throw e;
    // A zone out of reach is not "nothing to diff": reviewing its answer instead would mislead.
    if (zone && e.code !== 'E_NOT_GIT_REPO' && e.code !== 'E_NO_WORKTREE') throw e;
    return null; // not in git, or its worktree is gone: its answer is reviewed instead
  }
  if (d.files.length === 0 || d.patch.trim() === '') {
    if (!explicit) return null;
    throw new KlaudeError('E_NOTHING_TO_REVIEW', `${who(origin)} changed no files: there is no diff to review`, {
      hint: `klaude review ${shortId(origin.id)} --output reviews its final answer`,
    });
  }
  const about =
    (d.kind === 'worktree'
      ? `branch ${d.branch} against ${d.base.slice(0, 10)}, uncommitted work included`
      : `the current changes of the files it touched in the shared tree (approximate: other edits to them show too)`) +
    (zone ? `; made on another machine (zone ${zone.name}): the files here do not have these changes` : '');
  const files = d.files.map((f) => `${f.path} (${f.added === null ? 'binary' : `+${f.added} -${f.deleted}`})`);
  return {
    subject: 'diff',
    text: d.patch,
    about,
    files,
    cwd: place.cwd,
    fullCommand: `klaude diff ${shortId(origin.id)}`,
  };
}

/** The origin's final answer as review material. */
async function outputMaterial(
  svc: AgentServices,
  origin: SessionRow,
  cwd: string,
): Promise<Omit<ReviewMaterial, 'task' | 'focus' | 'origin'>> {
  const logPath = origin.logPath ?? sessionLogPath(svc.home, origin.projectId, origin.id, svc.config['logs.dir']);
  let text: string | null = null;
  try {
    text = collectCompletionInfo(await readAllEvents(logPath)).finalText;
  } catch {
    text = null; // no log (an interactive session): its last message below
  }
  text = text?.trim() || origin.lastText?.trim() || null;
  if (!text) {
    throw new KlaudeError('E_NOTHING_TO_REVIEW', `${who(origin)} has no final answer yet: there is nothing to review`, {
      hint: isTerminal(origin.status) ? undefined : `klaude wait ${shortId(origin.id)}, then review it`,
    });
  }
  return { subject: 'output', text, about: '', files: [], cwd, fullCommand: `klaude logs ${shortId(origin.id)} -s` };
}

/** Where a reviewer reads: the origin's own directory — inside its worktree for a worktree agent. */
function reviewPlace(db: AgentServices['db'], origin: SessionRow): { projectRoot: string; cwd: string } {
  const place = forkPlace(db, origin);
  return origin.worktreePath ? { ...place, cwd: launchMetadata(origin)?.cwd ?? origin.worktreePath } : place;
}

/** Start the reviewers of `origin`'s work; they run on, detached. */
export async function startReviews(svc: AgentServices, origin: SessionRow, o: ReviewOptions): Promise<StartedReviews> {
  if (origin.reviewOf) {
    throw new KlaudeError('E_USAGE', `${who(origin)} is a review of ${shortId(origin.reviewOf)}`, {
      hint: `review the work itself: klaude review ${shortId(origin.reviewOf)}`,
    });
  }
  const place = reviewPlace(svc.db, origin);
  const notes: string[] = [];
  const m =
    (o.subject !== 'output' ? await diffMaterial(svc, origin, place, o.subject === 'diff') : null) ??
    (await outputMaterial(svc, origin, place.cwd));
  if (!isTerminal(origin.status)) notes.push(`${who(origin)} is still ${origin.status}: this reviews its work so far`);
  const prompt = reviewPrompt({ ...m, origin: who(origin), task: origin.prompt, focus: o.focus });
  const reviewers: SessionRow[] = [];
  for (const r of await chooseReviewers(svc, origin, o, place.cwd, notes)) {
    const req: StartRequest = {
      type: r.type,
      prompt,
      title: `review of ${shortId(origin.id)}'s ${m.subject === 'diff' ? 'diff' : 'answer'}${o.focus ? ` (${o.focus})` : ''}`,
      ...(r.runtime ? { runtime: r.runtime } : {}),
      parentId: origin.parentId,
      cwd: place.cwd,
      worktree: false,
      reviewOf: { sessionId: origin.id, subject: m.subject, focus: o.focus },
    };
    const out = await startAgents(svc, req);
    reviewers.push(...out.sessions);
    notes.push(...out.notes);
  }
  return { origin, subject: m.subject, reviewers, notes };
}

export interface SentReviews {
  origin: SessionRow;
  reviews: ReviewView[];
  delivery: Delivery;
  text: string;
}

const matches = (r: ReviewView, by: readonly string[]): boolean =>
  by.length === 0 || by.includes(r.runtime) || by.includes(r.type);

/** Why there is nothing to send, as the error the person reads. */
function nothingToSend(origin: SessionRow, all: ReviewView[]): KlaudeError {
  const o = shortId(origin.id);
  const running = all.find((r) => !isTerminal(r.status) && r.findings === null);
  if (running) {
    const id = shortId(running.sessionId);
    return new KlaudeError(
      'E_REVIEW_NOT_READY',
      `the review of ${o} by ${reviewerName(running)} (${id}) is still ${running.status}`,
      {
        hint: `klaude wait ${id}, then klaude review ${o} --send`,
      },
    );
  }
  const sent = all.find((r) => r.sentAt !== null);
  if (sent) {
    return new KlaudeError('E_NO_REVIEW', `the findings of ${o}'s reviews were sent to it already`, {
      hint: `klaude review ${shortId(sent.sessionId)} --send sends one again`,
    });
  }
  const unread = all.find((r) => r.error !== null);
  if (unread) {
    return new KlaudeError(
      'E_NO_REVIEW',
      `the review by ${reviewerName(unread)} (${shortId(unread.sessionId)}) has no findings: ${unread.error}`,
      {
        hint: `klaude logs ${shortId(unread.sessionId)}`,
      },
    );
  }
  return new KlaudeError('E_NO_REVIEW', `${o} has no review to send`, { hint: `klaude review ${o} starts one` });
}

/**
 * Send findings to the agent they are about, as a message (it resumes a stopped agent): the named
 * review's, or every finished review of the origin not sent yet (narrowed by `by`).
 */
export async function sendReviews(
  svc: AgentServices,
  target: SessionRow,
  by: readonly string[] = [],
): Promise<SentReviews> {
  let origin: SessionRow | undefined;
  let chosen: ReviewView[];
  if (target.reviewOf) {
    origin = getSession(svc.db, target.reviewOf);
    const own = reviewById(svc.db, target.id);
    if (!own || own.findings === null) throw nothingToSend(origin ?? target, own ? [own] : []);
    chosen = [own];
  } else {
    origin = target;
    const all = reviewsOf(svc.db, target.id).filter((r) => matches(r, by));
    chosen = all.filter((r) => r.findings !== null && r.sentAt === null);
    if (chosen.length === 0) throw nothingToSend(target, all);
  }
  if (!origin) {
    throw new KlaudeError('E_SESSION_NOT_FOUND', `the session ${shortId(target.reviewOf!)} it reviewed was deleted`);
  }
  const text = reviewMessage(
    chosen.map((r) => ({
      by: reviewerName(r),
      shortId: shortId(r.sessionId),
      subject: r.subject,
      summary: r.summary,
      findings: r.findings ?? [],
    })),
  );
  const delivery = await deliverMessage(svc, origin.id, text);
  markReviewsSent(
    svc.db,
    chosen.map((r) => r.sessionId),
  );
  return { origin, reviews: chosen, delivery, text };
}
