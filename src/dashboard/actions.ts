/**
 * What the dashboard's keys do behind the UI (DashboardActions): open and new go through the
 * hand-over; agents start, take messages and stop through the control socket (the same path as
 * `klaude start`); talk attaches the terminal to a PTY session.
 */
import { controlRequest } from '../control/client.js';
import type { ControlEvent } from '../control/protocol.js';
import { shortId } from '../core/ids.js';
import { setArchived } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { DashboardActions } from '../ui/deps.js';
import { isLive } from '../ui/state/tree.js';
import { reclaimStdin } from '../ui/terminal/screen.js';
import type { HandOver } from './hand-over.js';
import type { UiShell } from './supervisor.js';

export interface ActionDeps {
  ctx: SupervisorContext;
  shell: UiShell;
  handOver: HandOver;
  publish(e: ControlEvent): void;
  /** The session the person is talking to right now (no bell for it), set while talking. */
  setTalking(id: string | null): void;
  close(code: number, o?: { stopPtySessions?: boolean }): void;
  suspendToShell(): void;
}

export function dashboardActions(d: ActionDeps): DashboardActions {
  const { ctx, shell, handOver } = d;
  const { sessions, host } = shell;
  const cwd = shell.cwd;
  const afterwards = <T>(p: Promise<T>): Promise<T> => p.finally(() => sessions.refresh());

  return {
    open: async (id) => {
      await handOver.run(handOver.existing(id));
    },
    newSession: async () => {
      await handOver.run(handOver.fresh);
    },
    start: (req) =>
      afterwards(controlRequest(ctx.socketPath, 'start', { type: req.type, prompt: req.prompt, ...(req.parentId ? { parentId: req.parentId } : {}), cwd }, { timeoutMs: 60_000 })),
    message: (sessionId, prompt) => afterwards(controlRequest(ctx.socketPath, 'message', { sessionId, prompt }, { timeoutMs: 60_000 })),
    interrupt: (sessionIds) => afterwards(controlRequest(ctx.socketPath, 'interrupt', { sessionIds }, { timeoutMs: 30_000 })),
    archive: async (ids, archived) => {
      // Archiving only hides: it never signals a process, and refuses live sessions outright.
      const rows = setArchived(ctx.db, ids, archived, (found) => {
        const live = archived ? found.find((s) => isLive(s)) : undefined;
        if (live) throw new KlaudeError('E_SESSION_BUSY', `${shortId(live.id)} is ${live.status}: only finished sessions can be archived`);
      });
      for (const s of rows) d.publish({ type: 'session.changed', sessionId: s.id, status: s.status });
      sessions.refresh();
    },
    agentTypes: async () => (await import('./agent-types.js')).agentChoices(cwd, shell.opts.env),
    talk: async (sessionId) => {
      if (handOver.face !== 'dashboard') throw handOver.busy();
      handOver.face = 'talk';
      d.setTalking(sessionId);
      const stdin = shell.opts.stdin ?? process.stdin;
      try {
        const { talkFromDashboard } = await import('./talk.js');
        return await talkFromDashboard({
          home: shell.home,
          sessionId,
          cwd,
          env: shell.opts.env,
          inv: ctx.inv,
          stdin,
          stdout: shell.opts.stdout ?? process.stdout,
          // The dashboard lets go of the terminal, then this process reads it again, for the PTY.
          suspend: () => {
            host.suspend();
            reclaimStdin(stdin);
          },
          resume: () => {
            if (handOver.face === 'talk') host.resume();
          },
        });
      } finally {
        d.setTalking(null);
        if (handOver.face === 'talk') handOver.face = 'dashboard';
        sessions.refresh();
      }
    },
    quit: (o) => {
      if (o?.stopPtySessions) {
        for (const [, p] of sessions.getSnapshot().processes) {
          if (p.pty === undefined) continue;
          try {
            process.kill(p.pty, 'SIGTERM');
          } catch (err) {
            ctx.log.warn('stopping a PTY host failed', { pid: p.pty, err });
          }
        }
      }
      d.close(0, o);
    },
    redraw: () => host.redraw(),
    suspend: () => d.suspendToShell(),
  };
}
