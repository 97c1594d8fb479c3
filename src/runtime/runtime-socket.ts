/**
 * The runtime's control socket (`<runDir>/<hash>/a/<id>.sock`, control/agent-socket.ts): how
 * `klaude message`, `interrupt`, `approve`/`deny`, `stop` and discovery's `ping` reach a running
 * agent. The runtime answers; this file only wires the actions to it.
 */
import { startControlServer, type ControlServer } from '../control/server.js';
import {
  PROTOCOL_VERSION,
  type AnswerPayload,
  type AnswerResult,
  type InterruptResult,
  type MessageResult,
} from '../control/protocol.js';
import { agentSocketPath } from '../control/agent-socket.js';
import { identifyAnswerer, type Answerer } from '../ownership/answerer.js';
import { VERSION } from '../lib/version.js';
import { zoneHeldOf } from '../core/zone.js';
import type { Deps } from './deps.js';
import type { ImageRef } from '../core/image.js';

/** What the runtime does for each request (each may throw a KlaudeError, sent back as the answer). */
export interface RuntimeRequests {
  message(prompt: string, images: readonly ImageRef[]): MessageResult;
  interrupt(peek: boolean): InterruptResult;
  answer(p: AnswerPayload, who: Answerer): AnswerResult;
  stop(reason: string): Promise<void>;
}

/** Listen on the session's socket; null (logged) when it cannot: the run goes on without it. */
export async function listenForRequests(d: Deps, r: RuntimeRequests): Promise<ControlServer | null> {
  try {
    return await startControlServer({
      socketPath: agentSocketPath(d.home, d.session.projectId, d.session.id, d.env),
      handlers: {
        ping: () => ({
          pong: true,
          instanceId: d.session.id,
          pid: process.pid,
          version: VERSION,
          protocol: PROTOCOL_VERSION,
        }),
        message: (p) => r.message(p.prompt, p.images ?? []),
        interrupt: (p) => r.interrupt(p.peek === true),
        // Who sent it is asked of the kernel, never taken from the client (ownership/answerer.ts). An
        // agent started from another machine is answered only through its zone link (docs/zones.md).
        answer: (p, ctx) => {
          const zone = { held: zoneHeldOf(d.session) !== null };
          return r.answer(p, identifyAnswerer(d.db, ctx.peer(), p, d.env, undefined, zone));
        },
        stop: () => {
          setImmediate(() => void r.stop('stop requested'));
          return { stopping: true };
        },
      },
      log: (level, msg, data) => d.log[level](msg, data),
    });
  } catch (e) {
    d.log.warn('agent control socket unavailable: message/interrupt will not reach this run', { err: e });
    return null;
  }
}
