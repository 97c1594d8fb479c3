/**
 * The end of a runtime's run: letting its CLI exit, the `done` of a CLI that exited without saying
 * how its turn ended, and what the process releases last (its process row, the socket, its run
 * slot, the log and the DB).
 */
import type { EventOf } from '../core/events.js';
import type { ControlServer } from '../control/server.js';
import { endProcess } from '../db/repos/processes.js';
import { notificationsSent } from '../agent-ops/notify.js';
import { startQueued } from '../agent-ops/queue.js';
import { dropForkCopy } from '../agent-ops/fork.js';
import { currentInvocation } from '../claude/shim.js';
import type { CliExit, CliProcess } from './cli-process.js';
import type { Deps } from './deps.js';

export const STOP_GRACE_MS = 3000;

/** A fork's copy of its origin's transcript goes once its own is there (agent-ops/fork.ts); never fatal. */
export function forgetForkCopy(d: Deps): void {
  try {
    dropForkCopy(d.session, d.meta.cwd, d.env);
  } catch (err) {
    d.log.warn('removing the copy of the forked transcript failed', { err });
  }
}
/** After the last turn, how long the CLI may take to exit once its stdin is closed. */
const EXIT_AFTER_EOF_MS = 15_000;

/**
 * A last resort for a CLI that does not exit on its own (ignores EOF, or lingers after its turn):
 * stopped after EXIT_AFTER_EOF_MS. Fire and forget: the CLI's exit is handled where it is awaited
 * (the runtime's run); stop() and exited never reject.
 */
export function stopIfLingering(cli: CliProcess | null): void {
  if (!cli) return;
  const t = setTimeout(() => void cli.stop(STOP_GRACE_MS), EXIT_AFTER_EOF_MS);
  void cli.exited.then(() => clearTimeout(t));
}

/** The run's `done` when the CLI exited without one: failed, with the exit and the tail of stderr. */
export function exitFailure(cliName: string, exit: CliExit): Omit<EventOf<'done'>, 'ts'> {
  const tail = exit.stderr.trim().split('\n').slice(-3).join(' | ');
  return {
    type: 'done',
    status: 'failed',
    error: `${cliName} exited with ${exit.signal ?? `code ${exit.code}`}${tail ? `: ${tail}` : ''}`,
  };
}

/** The runtime's last steps, once its run is recorded: nothing of it stays open behind it. */
export async function releaseRun(
  d: Deps,
  processRowId: number | null,
  exit: CliExit | null,
  server: ControlServer | null,
): Promise<void> {
  try {
    if (processRowId !== null)
      endProcess(d.db, processRowId, { exitCode: exit?.code ?? null, signal: exit?.signal ?? null });
  } catch (err) {
    d.log.error('ending the process row failed', { err });
  }
  await server?.close().catch(() => undefined);
  // This run's slot is free: the first queued agent that fits starts now.
  await startQueued({ db: d.db, config: d.config, home: d.home, env: d.env, inv: currentInvocation(), log: d.log });
  // A webhook or command told of this run's end is let finish (bounded) before the process goes.
  await notificationsSent();
  d.writer.close();
  d.db.close();
}
