/**
 * Starting queued agents (the queue itself is src/db/repos/queue.ts). No polling: whoever frees a
 * slot calls `startQueued` — the runtime that ends its run, recovery that reclaims a dead
 * runtime's slot, and `start` itself (so a start never passes the head of the queue). Each queued
 * agent starts with its own starter's launch (environment, klaude, cwd, project: launch-env.ts and
 * its row), whoever frees the slot.
 */
import { shortId } from '../core/ids.js';
import type { Config } from '../config/schema.js';
import { RUNTIMES } from '../config/schema.js';
import type { Db } from '../db/client.js';
import { takeRunnable, type RunLimits } from '../db/repos/queue.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import type { Logger } from '../lib/logger.js';
import { appendSessionEvent } from '../logs/writer.js';
import { isImageRef, type ImageRef } from '../core/image.js';
import { spawnRuntime } from './launch.js';
import { forgetEndedLaunchEnvs, readLaunchEnv } from './launch-env.js';

/** How long a runtime's limit stays lowered after it reported rate limiting. */
export const RATE_LIMIT_BACKOFF_MS = 5 * 60_000;

export function runLimits(config: Config): RunLimits {
  const perRuntime: Record<string, number> = {};
  for (const r of RUNTIMES) perRuntime[r] = config[`runtimes.${r}.maxRunning`];
  return { global: config['agents.maxRunning'], perRuntime };
}

/** What a queued start keeps in the session's metadata until it runs. */
export interface QueuedRequest {
  prompt: string;
  share: string | null;
  /** Images sent with messages while it waited (claude agents only). */
  images: ImageRef[];
}

export function queuedRequestOf(metadata: Record<string, unknown> | null): QueuedRequest | null {
  const q = metadata?.queuedRequest as Partial<QueuedRequest> | undefined;
  return q && typeof q.prompt === 'string'
    ? {
        prompt: q.prompt,
        share: typeof q.share === 'string' ? q.share : null,
        images: Array.isArray(q.images) ? q.images.filter(isImageRef) : [],
      }
    : null;
}

export interface QueueServices {
  db: Db;
  config: Config;
  home: string;
  /** The caller's environment: never what a queued agent starts with (it has its own). */
  env: NodeJS.ProcessEnv;
  /** The caller's klaude: a queued agent's own is used while it is still installed. */
  inv: KlaudeInvocation;
  log?: Logger;
}

/** A queued agent that cannot start: failed, with why in its log. */
function failQueued(svc: QueueServices, id: string, logPath: string | null, error: string): void {
  updateSession(svc.db, id, { status: 'failed', endedAt: Date.now() });
  if (logPath) appendSessionEvent(logPath, { type: 'done', status: 'failed', error });
}

/**
 * Start every queued agent that fits now (FIFO), each with the launch its starter kept; returns
 * their ids. Also forgets the launches of runs that are over (a run's end calls this). Never
 * throws: a failed spawn fails that agent.
 */
export async function startQueued(svc: QueueServices): Promise<string[]> {
  forgetEndedLaunchEnvs(svc.db, svc.home, svc.config);
  let ids: string[];
  try {
    ids = takeRunnable(svc.db, runLimits(svc.config));
  } catch (err) {
    svc.log?.error('taking queued agents failed', { err });
    return [];
  }
  for (const id of ids) {
    const s = getSession(svc.db, id);
    const req = s ? queuedRequestOf(s.metadata) : null;
    const cwd = (s?.metadata as { cwd?: unknown } | null)?.cwd;
    if (!s || !req || typeof cwd !== 'string') {
      updateSession(svc.db, id, { status: 'failed', endedAt: Date.now() });
      continue;
    }
    // Never another starter's environment: without its own, the agent does not run.
    const own = readLaunchEnv(svc.home, id);
    if (!own) {
      failQueued(svc, id, s.logPath, 'its launch environment was not kept (start it again)');
      continue;
    }
    try {
      const pid = await spawnRuntime({
        home: svc.home,
        sessionId: id,
        request: {
          prompt: req.prompt,
          source: 'start',
          share: req.share,
          ...(req.images.length ? { images: req.images } : {}),
        },
        inv: own.inv ?? svc.inv,
        env: { ...own.env, KLAUDE_PROJECT_HASH: s.projectId },
        cwd,
      });
      svc.log?.info('queued agent started', { session: shortId(id), pid });
    } catch (e) {
      failQueued(svc, id, s.logPath, (e as Error).message);
    }
  }
  return ids;
}
