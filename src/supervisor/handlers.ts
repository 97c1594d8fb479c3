import { PROTOCOL_VERSION } from '../control/protocol.js';
import type { ControlHandlers } from '../control/server.js';
import { VERSION } from '../lib/version.js';
import { agentHandlers } from './agent-handlers.js';
import type { HandlerDeps } from './handler-deps.js';

/** The control-socket actions a supervisor answers (one small function each). */
export function supervisorHandlers(d: HandlerDeps): ControlHandlers {
  const { ctx, switcher } = d;
  return {
    ...agentHandlers(d),
    ping: () => ({
      pong: true,
      instanceId: ctx.instanceId,
      pid: process.pid,
      version: VERSION,
      protocol: PROTOCOL_VERSION,
    }),
    status: () => {
      const fg = switcher.foreground;
      return {
        instanceId: ctx.instanceId,
        pid: process.pid,
        projectRoot: ctx.projectRoot,
        projectHash: ctx.projectHash,
        mode: 'cli',
        rootSessionId: d.rootSessionId(),
        foregroundSessionId: fg?.spec.sessionId ?? null,
        foregroundPid: fg?.pid ?? null,
        switching: switcher.isSwitching,
        startedAt: new Date(d.startedAt).toISOString(),
      };
    },
    checkout: async (payload) => {
      d.publish({
        type: 'instance.switching',
        switching: true,
        ...(payload.target ? { targetSessionId: payload.target } : {}),
      });
      try {
        return await switcher.checkout(payload);
      } finally {
        d.publish({ type: 'instance.switching', switching: false });
      }
    },
    stop: () => {
      d.publish({ type: 'instance.stopping' });
      setImmediate(() => void switcher.shutdown(0));
      return { stopping: true };
    },
  };
}
