import type { ControlEvent } from '../control/protocol.js';
import type { SupervisorContext } from './context.js';
import type { Switcher } from './switcher.js';

/** What a supervisor's control handlers (handlers.ts, agent-handlers.ts) work with. */
export interface HandlerDeps {
  ctx: SupervisorContext;
  switcher: Switcher;
  rootSessionId: () => string | null;
  startedAt: number;
  publish: (e: ControlEvent) => void;
}
