/**
 * What a page may do to agents, through the same services as the CLI (agent-ops/, git/), so the
 * rules and the errors are the CLI's: one writer per conversation, busy sessions refused with the
 * holder named, approvals answered only by the person. Each action opens the services of the
 * session's own project, as `klaude <command>` run in that project would, and closes them after.
 */
import { answerRequest, localSettingsPath } from '../agent-ops/approvals.js';
import { archiveSessions } from '../agent-ops/archive.js';
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { deliverMessage, interruptAgent, type Delivery } from '../agent-ops/message.js';
import { startAgents, type StartOutcome } from '../agent-ops/start.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { mergeAgentBranch, type MergeOutcome } from '../git/merge.js';
import { sessionDiff, type SessionDiff } from '../git/session-diff.js';
import { KlaudeError } from '../lib/errors.js';
import type { AnswerResult } from '../control/protocol.js';
import { logFileOf } from './log-stream.js';
import { assertTakesImages, keepImages, type IncomingImage } from '../agent-ops/attachments.js';

export interface WebActionsDeps {
  /** The full client (drizzle): this module is loaded, and the DB opened so, on the first action. */
  db: Db;
  /** The server's environment, without what marks a Claude or a session (web-launch.ts serverEnv). */
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
}

export interface AnswerBody {
  behavior: 'allow' | 'deny';
  always?: boolean;
  message?: string;
  request?: string;
}

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

  /** Run `fn` with the services of a project, as a command run in its root would have them. */
  private async withProject<T>(projectId: string, fn: (svc: AgentServices) => Promise<T> | T): Promise<T> {
    const svc = openAgentServices({ env: this.d.env, cwd: this.rootOf(projectId) });
    try {
      return await fn(svc);
    } finally {
      await closeAgentServices(svc);
      this.d.changed();
    }
  }

  answer(id: string, a: AnswerBody): Promise<AnswerResult & { rulePath?: string }> {
    const s = this.session(id);
    return this.withProject(s.projectId, async (svc) => {
      const r = await answerRequest(svc, s.id, a);
      return a.always && a.behavior === 'allow' ? { ...r, rulePath: localSettingsPath(svc, s.id) } : r;
    });
  }

  /**
   * A message, with the images pasted or picked in the page (`[{data: base64, name?}]`), checked
   * and kept as `klaude message --image` does.
   */
  message(id: string, prompt: string, images: unknown = []): Promise<Delivery> {
    const s = this.session(id);
    const incoming = incomingImages(images);
    return this.withProject(s.projectId, async (svc) => {
      if (incoming.length > 0) await assertTakesImages(s);
      return deliverMessage(svc, s.id, prompt, keepImages(svc.home, s, incoming));
    });
  }

  /** Interrupt its turn; the messages queued behind it that will not be sent. */
  interrupt(id: string): Promise<{ dropped: string[] }> {
    const s = this.session(id);
    return this.withProject(s.projectId, (svc) => interruptAgent(svc, s.id));
  }

  archive(id: string, restore: boolean): Promise<string[]> {
    const s = this.session(id);
    return this.withProject(s.projectId, (svc) => archiveSessions(svc, [s.id], restore).map((r) => r.id));
  }

  merge(id: string): Promise<MergeOutcome> {
    const s = this.session(id);
    return this.withProject(s.projectId, (svc) => mergeAgentBranch(s, svc.projectRoot));
  }

  start(b: StartBody): Promise<StartOutcome> {
    return this.withProject(b.project, (svc) =>
      startAgents(svc, {
        type: b.type,
        prompt: b.prompt,
        cwd: svc.projectRoot,
        ...(b.worktree !== undefined ? { worktree: b.worktree } : {}),
        ...(b.runtime ? { runtime: b.runtime } : {}),
        ...(b.model ? { model: b.model } : {}),
      }),
    );
  }

  async diff(id: string, home: string, logsDir: string | null): Promise<SessionDiff> {
    const s = this.session(id);
    return sessionDiff(s, { projectRoot: this.rootOf(s.projectId), logPath: logFileOf(home, s, logsDir), patch: true });
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
