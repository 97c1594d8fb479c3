/**
 * What a page may do to agents, through the same services as the CLI (agent-ops/, git/), so the
 * rules and the errors are the CLI's: one writer per conversation, busy sessions refused with the
 * holder named, approvals answered only by the person. Each action opens the services of the
 * session's own project, as `klaude <command>` run in that project would, and closes them after,
 * with the environment and klaude of the person whose link signed the page in (its session,
 * ownership/web-sessions.ts): an agent started or resumed from a page runs as one started from
 * that person's terminal would, not with the environment of whoever started the server. A request
 * with the bearer token (no page) gets the server's own.
 */
import { existsSync } from 'node:fs';
import { answerRequest, localSettingsPath } from '../agent-ops/approvals.js';
import { archive, archiveNote } from '../agent-ops/archive.js';
import type { PruneResult } from '../git/prune.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { deliverMessage, interruptAgent, type Delivery } from '../agent-ops/message.js';
import { startAgents, type StartOutcome } from '../agent-ops/start.js';
import { sendReviews, startReviews } from '../agent-ops/reviewers.js';
import { shortId } from '../core/ids.js';
import type { PriorityName } from '../core/priority.js';
import type { Db } from '../db/client.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import type { MergeOutcome } from '../git/merge.js';
import { agentDiff, mergeAgent } from '../zones/diff-merge.js';
import { zoneOf } from '../core/zone.js';
import { sessionDiff, type SessionDiff } from '../git/session-diff.js';
import { KlaudeError } from '../lib/errors.js';
import type { AnswerResult } from '../control/protocol.js';
import { logFileOf } from './log-stream.js';
import type { PageSession } from '../ownership/web-sessions.js';
import { serviceEnv } from '../lib/service-env.js';
import { assertTakesImages, keepImages, type IncomingImage } from '../agent-ops/attachments.js';

export interface WebActionsDeps {
  /** The full client (drizzle): this module is loaded, and the DB opened so, on the first action. */
  db: Db;
  home: string;
  /** The server's environment, without what marks a Claude or a session (lib/service-env.ts). */
  env: NodeJS.ProcessEnv;
  /** Told after each action that wrote something (the pages see it at once). */
  changed: () => void;
}

export interface StartBody {
  project: string;
  type: string;
  prompt: string;
  worktree?: boolean;
  runtime?: string;
  model?: string;
  /** Run-queue priority (else the definition's `priority:`, else normal). */
  priority?: PriorityName;
  /** on / off (else the definition's `sandbox:`, else config agents.sandbox). */
  sandbox?: 'on' | 'off';
  /** A Claude Code skill the agent runs, the prompt being its arguments. */
  skill?: string;
}

/** What an archive did: the sessions (ids), their worktrees, and the sentence about what was kept. */
export interface ArchiveResult {
  sessions: string[];
  worktrees: PruneResult[];
  note: string | null;
}

export interface AnswerBody {
  behavior: 'allow' | 'deny';
  always?: boolean;
  message?: string;
  request?: string;
}

/** Who acts: the signed-in page (null: a script with the bearer token). */
export type Actor = PageSession | null;

export class WebActions {
  constructor(private readonly d: WebActionsDeps) {}

  session(id: string): SessionRow {
    const s = getSession(this.d.db, id);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `no session ${shortId(id)}`);
    return s;
  }

  private rootOf(projectId: string): string {
    const p = getProject(this.d.db, projectId);
    if (!p) throw new KlaudeError('E_NO_PROJECT', `no project ${projectId}`);
    return p.rootPath;
  }

  /**
   * Run `fn` with the services of a project, as a command run in its root would have them, by the
   * person whose link signed `by` in (their environment and klaude), else by the server.
   */
  private async withProject<T>(projectId: string, by: Actor, fn: (svc: AgentServices) => Promise<T> | T): Promise<T> {
    const inv = by?.inv && existsSync(by.inv.node) && existsSync(by.inv.cli) ? by.inv : undefined;
    const env = by ? serviceEnv(by.env, this.d.home) : this.d.env;
    const svc = openAgentServices({ env, cwd: this.rootOf(projectId), ...(inv ? { inv } : {}) });
    try {
      return await fn(svc);
    } finally {
      await closeAgentServices(svc);
      this.d.changed();
    }
  }

  /** Only a signed-in page answers: the runtime records what its sign-in proved. */
  answer(id: string, a: AnswerBody, by: PageSession): Promise<AnswerResult & { rulePath?: string }> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, async (svc) => {
      const r = await answerRequest(svc, s.id, { ...a, webSession: by.id });
      return a.always && a.behavior === 'allow' ? { ...r, rulePath: localSettingsPath(svc, s.id) } : r;
    });
  }

  /**
   * A message, with the images pasted or picked in the page (`[{data: base64, name?}]`), checked
   * and kept as `klaude message --image` does.
   */
  message(id: string, prompt: string, images: unknown, by: Actor): Promise<Delivery> {
    const s = this.session(id);
    const incoming = incomingImages(images);
    return this.withProject(s.projectId, by, async (svc) => {
      if (incoming.length > 0) await assertTakesImages(s);
      return deliverMessage(svc, s.id, prompt, keepImages(svc.home, s, incoming));
    });
  }

  /** Interrupt its turn; the messages queued behind it that will not be sent. */
  interrupt(id: string, by: Actor): Promise<{ dropped: string[] }> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, (svc) => interruptAgent(svc, s.id));
  }

  /** Archive it with its sub-agents (or bring it back), by the rule every surface shares. */
  archive(id: string, restore: boolean, by: Actor): Promise<ArchiveResult> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, async (svc) => {
      const out = await archive(svc, [s.id], { restore });
      return { sessions: out.sessions.map((r) => r.id), worktrees: out.worktrees, note: archiveNote(out) };
    });
  }

  merge(id: string, by: Actor): Promise<MergeOutcome> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, (svc) => mergeAgent(svc, s, svc.projectRoot));
  }

  start(b: StartBody, by: Actor): Promise<StartOutcome> {
    return this.withProject(b.project, by, (svc) =>
      startAgents(svc, {
        type: b.type,
        prompt: b.prompt,
        cwd: svc.projectRoot,
        ...(b.worktree !== undefined ? { worktree: b.worktree } : {}),
        ...(b.runtime ? { runtime: b.runtime } : {}),
        ...(b.model ? { model: b.model } : {}),
        ...(b.priority ? { priority: b.priority } : {}),
        ...(b.sandbox ? { sandbox: b.sandbox } : {}),
        ...(b.skill ? { skill: b.skill } : {}),
      }),
    );
  }

  /** Give a review's findings (the named reviewer's, or every unsent one of a reviewed session) to the reviewed agent. */
  sendReview(
    id: string,
    by: Actor,
  ): Promise<{ sessionId: string; reviews: string[]; delivery: Delivery; findings: number }> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, async (svc) => {
      const r = await sendReviews(svc, s);
      const findings = r.reviews.reduce((n, x) => n + (x.findings?.length ?? 0), 0);
      return { sessionId: r.origin.id, reviews: r.reviews.map((x) => x.sessionId), delivery: r.delivery, findings };
    });
  }

  /** Start reviewers on a session's work, as `klaude review` (`by`: runtimes or agent types; none: the default). */
  startReview(
    id: string,
    reviewers: string[],
    by: Actor,
  ): Promise<{ sessionIds: string[]; subject: string; notes: string[] }> {
    const s = this.session(id);
    return this.withProject(s.projectId, by, async (svc) => {
      const r = await startReviews(svc, s, { by: reviewers, focus: null });
      return { sessionIds: r.reviewers.map((x) => x.id), subject: r.subject, notes: r.notes };
    });
  }

  async diff(id: string, home: string, logsDir: string | null, by: Actor): Promise<SessionDiff> {
    const s = this.session(id);
    const o = { projectRoot: this.rootOf(s.projectId), logPath: logFileOf(home, s, logsDir), patch: true };
    // A zone's agent: taken over there, through the zone's link (zones/diff-merge.ts).
    if (zoneOf(s)) return this.withProject(s.projectId, by, (svc) => agentDiff(svc, s, o));
    return sessionDiff(s, o);
  }
}

/** The page's images as they came in the body; anything else is a bad request. */
function incomingImages(x: unknown): IncomingImage[] {
  if (x === undefined || x === null) return [];
  const bad = (): KlaudeError => new KlaudeError('E_BAD_REQUEST', 'images are [{data: base64, name?}]');
  if (!Array.isArray(x)) throw bad();
  return x.map((i: unknown, n) => {
    const o = i as { data?: unknown; name?: unknown } | null;
    if (typeof o?.data !== 'string') throw bad();
    const name = typeof o.name === 'string' && o.name.trim() ? o.name.trim().slice(0, 80) : `image ${n + 1}`;
    return { bytes: Buffer.from(o.data, 'base64'), name };
  });
}
