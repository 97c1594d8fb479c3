/**
 * What the dashboard's keys do behind the UI (DashboardActions): open and new go through the
 * hand-over; agents start, take messages and stop through the control socket (the same path as
 * `klaude start`); talk attaches the terminal to a PTY session.
 */
import { controlRequest } from '../control/client.js';
import { answerRequest, localSettingsPath } from '../agent-ops/approvals.js';
import { archive as archiveTree, archiveNote } from '../agent-ops/archive.js';
import { agentServicesOf } from '../supervisor/agent-handlers.js';
import type { ControlEvent } from '../control/protocol.js';
import { shortId } from '../core/ids.js';
import { setSessionName, setSessionPinned } from '../db/repos/session-marks.js';
import { KlaudeError } from '../lib/errors.js';
import type { SupervisorContext } from '../supervisor/context.js';
import type { DashboardActions } from '../ui/deps.js';
import { osc52 } from '../lib/escapes.js';
import { reclaimStdin } from '../ui/render/screen.js';
import { stopPtySession } from '../pty/launch.js';
import type { HandOver } from './hand-over.js';
import { otherProjectActions, otherProjectOf, refuseOpen } from './other-project.js';
import { peekLines, replyInto } from './peek-reply.js';
import type { UiShell } from './shell.js';

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

/**
 * The actions, each done in the session's own project: a row of another project (all projects
 * shown) goes through other-project.ts; checking one out is refused there.
 */
export function dashboardActions(d: ActionDeps): DashboardActions {
  const here = thisProjectActions(d);
  const { ctx } = d;
  const other = (id: string | undefined) => {
    const p = id === undefined ? null : otherProjectOf(ctx, id);
    return p ? { ...otherProjectActions(ctx, p.root), root: p.root } : null;
  };
  const peek = { home: ctx.home, db: ctx.db, env: ctx.env };
  const afterwards = <T>(p: Promise<T>): Promise<T> => p.finally(() => d.shell.feed.refresh());
  return {
    ...here,
    open: async (id) => {
      const o = other(id);
      if (o) throw refuseOpen(id, o.root);
      return here.open(id);
    },
    start: async (req) => {
      const o = other(req.parentId ?? undefined);
      if (o)
        throw new KlaudeError('E_USAGE', `s starts agents in this project; ${shortId(req.parentId!)} is in ${o.root}`, {
          hint: `select a row of this project, or run \`klaude start\` in ${o.root}`,
        });
      return here.start(req);
    },
    message: (id, p) => {
      const o = other(id);
      return o ? afterwards(o.message(id, p)) : here.message(id, p);
    },
    interrupt: (ids) => {
      const o = other(ids[0]);
      return o ? afterwards(o.interrupt(ids)) : here.interrupt(ids);
    },
    answer: (id, a) => {
      const o = other(id);
      return o ? afterwards(o.answer(id, a)) : here.answer(id, a);
    },
    archive: (ids, a) => afterwards(other(ids[0])?.archive(ids, a) ?? here.archive(ids, a)),
    rulePath: (id) => other(id)?.rulePath(id) ?? here.rulePath(id),
    diff: async (id) => {
      const o = other(id);
      const review = {
        db: ctx.db,
        home: ctx.home,
        projectRoot: o?.root ?? ctx.projectRoot,
        logsDir: ctx.config['logs.dir'],
        zones: ctx,
      };
      return (await import('./diff-view.js')).agentDiff(review, id);
    },
    talk: (id) => talk(d, id, other(id)?.root ?? d.shell.cwd),
    peek: (id, what) => peekLines(peek, id, what),
    reply: (id, text) => afterwards(replyInto(peek, id, text)),
  };
}

function thisProjectActions(d: ActionDeps): Omit<DashboardActions, 'peek' | 'reply'> {
  const { ctx, shell, handOver } = d;
  const { sessions, host } = shell;
  const cwd = shell.cwd;
  const review = {
    db: ctx.db,
    home: ctx.home,
    projectRoot: ctx.projectRoot,
    logsDir: ctx.config['logs.dir'],
    zones: ctx,
  };
  const afterwards = <T>(p: Promise<T>): Promise<T> => p.finally(() => sessions.refresh());

  return {
    open: async (id) => {
      await handOver.run(handOver.existing(id));
    },
    newSession: async () => {
      await handOver.run(handOver.fresh);
    },
    start: (req) =>
      afterwards(
        controlRequest(
          ctx.socketPath,
          'start',
          { type: req.type, prompt: req.prompt, ...(req.parentId ? { parentId: req.parentId } : {}), cwd },
          { timeoutMs: 60_000 },
        ),
      ),
    message: (sessionId, prompt) =>
      afterwards(controlRequest(ctx.socketPath, 'message', { sessionId, prompt }, { timeoutMs: 60_000 })),
    interrupt: (sessionIds) =>
      afterwards(controlRequest(ctx.socketPath, 'interrupt', { sessionIds }, { timeoutMs: 30_000 })),
    archive: (ids, archived) => archive(d, ids, archived),
    mark: async (id, m) => {
      if (m.name !== undefined) setSessionName(ctx.db, id, m.name);
      if (m.pinned !== undefined) setSessionPinned(ctx.db, id, m.pinned);
      sessions.refresh();
    },
    diff: async (id) => (await import('./diff-view.js')).agentDiff(review, id),
    // Loaded on first use: `klaude review`'s code is not in the dashboard's start-up.
    sendReview: async (id) => (await import('./review-actions.js')).reviewActions(ctx, sessions.refresh).sendReview(id),
    startReview: async (id) =>
      (await import('./review-actions.js')).reviewActions(ctx, sessions.refresh).startReview(id),
    // The dashboard is the person, even when klaude ui was started from a Claude's shell.
    answer: (sessionId, a) =>
      afterwards(
        answerRequest({ ...agentServicesOf({ ctx }), env: { ...ctx.env, CLAUDECODE: undefined } }, sessionId, a),
      ),
    rulePath: (sessionId) => localSettingsPath(agentServicesOf({ ctx }), sessionId),
    agentTypes: async () => (await import('./agent-types.js')).agentChoices(cwd, shell.opts.env),
    talk: (sessionId) => talk(d, sessionId, shell.cwd),
    quit: (o) => quit(d, o),
    redraw: () => host.redraw(),
    copy: (text) => (shell.opts.stdout ?? process.stdout).write(osc52(text)),
    suspend: () => d.suspendToShell(),
  };
}

/** The one archive service (agent-ops/archive.ts): the claim check, and worktrees pruned by its rule. */
async function archive(d: ActionDeps, ids: string[], archived: boolean): Promise<{ note: string } | undefined> {
  const { ctx, shell } = d;
  const out = await archiveTree(agentServicesOf({ ctx }), ids, { restore: !archived });
  for (const s of out.sessions) d.publish({ type: 'session.changed', sessionId: s.id, status: s.status });
  shell.sessions.refresh();
  const note = archiveNote(out);
  return note ? { note } : undefined;
}

/** Attach the terminal to a PTY session until the person detaches; the dashboard comes back after. */
async function talk(d: ActionDeps, sessionId: string, cwd: string): ReturnType<DashboardActions['talk']> {
  const { ctx, shell, handOver } = d;
  const { host } = shell;
  if (handOver.face !== 'dashboard') throw handOver.busy();
  handOver.face = 'talk';
  d.setTalking(sessionId);
  const stdin = shell.opts.stdin ?? process.stdin;
  try {
    const { talkFromDashboard } = await import('./talk-key.js');
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
    shell.sessions.refresh();
  }
}

function quit(d: ActionDeps, o: Parameters<DashboardActions['quit']>[0]): void {
  if (!o?.stopPtySessions) return d.close(0, o);
  const { ctx, shell } = d;
  // One PTY server hosts every session (other projects' too): each of ours is stopped by
  // asking it, never by signalling its pid.
  const ids = [...shell.sessions.getSnapshot().processes].filter(([, p]) => p.pty !== undefined).map(([id]) => id);
  void Promise.allSettled(
    ids.map((id) =>
      stopPtySession(shell.home, id, shell.opts.env).catch((err: unknown) => {
        ctx.log.warn('stopping a PTY session failed', { sessionId: id, err });
      }),
    ),
  ).then(() => d.close(0, o));
}
