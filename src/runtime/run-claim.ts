/**
 * The runtime's process records: its claim on the session (one runtime per session, and none while
 * someone else holds the conversation claim) and its CLI child as a process row owned by it, so
 * reconcile and `klaude message` can find a CLI whose runtime died.
 */
import { tx, type Db } from '../db/client.js';
import { currentProcesses, endProcess, recordProcess } from '../db/repos/processes.js';
import type { Logger } from '../lib/logger.js';
import { isSameProcess } from '../lib/process.js';
import { claimedByOther } from '../ownership/conversation-claim.js';
import type { CliProcess } from './cli-process.js';
import type { Deps } from './deps.js';
import type { AgentEventInput } from '../core/events.js';
import { shortId } from '../core/ids.js';
import { controlRequest } from '../control/client.js';
import { agentSocketPath } from '../control/agent-socket.js';

/**
 * Record our pid as the session's runtime. null: another live runtime has it; { busy }: someone
 * other than our starter holds the conversation claim (a checkout taking it to the foreground);
 * starting a CLI now would make two writers. The starter's own claim passes to us.
 */
export function claimRun(db: Db, sessionId: string, instanceId: string | null): number | null | { busy: string } {
  return tx(db, () => {
    const other = currentProcesses(db, sessionId, 'runtime').find(
      (p) => p.pid !== process.pid && isSameProcess(p.pid, p.pidStart),
    );
    if (other) return null;
    const holder = claimedByOther(db, sessionId, process.ppid);
    if (holder) return { busy: holder };
    // Open interactively (a klaude foreground, a PTY session): that claude writes the conversation.
    const fg = [...currentProcesses(db, sessionId, 'claude'), ...currentProcesses(db, sessionId, 'pty')].find((p) =>
      isSameProcess(p.pid, p.pidStart),
    );
    if (fg)
      return {
        busy:
          fg.kind === 'pty' ? `a PTY session (PTY server pid ${fg.pid})` : `a klaude foreground (claude pid ${fg.pid})`,
      };
    return recordProcess(db, { klaudeSessionId: sessionId, instanceId, pid: process.pid, kind: 'runtime' }).id;
  });
}

/** The CLI as a 'cli' row owned by the runtime's row, ended when the CLI exits. */
export function recordCli(
  d: { db: Db; log: Logger; session: { instanceId: string | null } },
  sessionId: string,
  runtimeRowId: number | null,
  cli: CliProcess,
): void {
  cli.child.once('spawn', () => {
    try {
      const row = recordProcess(d.db, {
        klaudeSessionId: sessionId,
        instanceId: d.session.instanceId,
        pid: cli.pid!,
        kind: 'cli',
        parentProcessId: runtimeRowId,
      });
      void cli.exited.then((e) => {
        try {
          endProcess(d.db, row.id, { exitCode: e.code, signal: e.signal });
        } catch (err) {
          d.log.warn('ending the CLI process row failed', { err });
        }
      });
    } catch (err) {
      d.log.warn('recording the CLI process failed', { err });
    }
  });
}

/** Another runtime runs this session: hand it the message instead of starting a second CLI (exit code). */
export async function forwardToOther(
  d: { home: string; env: NodeJS.ProcessEnv; log: Logger; session: { id: string; projectId: string } },
  prompt: string,
): Promise<number> {
  try {
    await controlRequest(agentSocketPath(d.home, d.session.projectId, d.session.id, d.env), 'message', {
      sessionId: d.session.id,
      prompt,
    });
    d.log.info('another runtime has the session; message forwarded');
    return 0;
  } catch (e) {
    d.log.error('another runtime has the session and did not take the message', { err: e });
    return 3;
  }
}

/** The conversation is someone else's: the log says who, and the runtime exits (3) without a CLI. */
export function refuseTaken(
  d: Pick<Deps, 'log' | 'writer' | 'db' | 'session'>,
  holder: string,
  write: (e: AgentEventInput) => void,
): number {
  d.log.error('the conversation is claimed by someone else: not starting the agent CLI', { holder });
  write({
    type: 'error',
    message: `not started: ${shortId(d.session.id)} is taken by ${holder} [E_SESSION_BUSY]`,
  });
  d.writer.close();
  d.db.close();
  return 3;
}
