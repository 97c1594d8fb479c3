/**
 * Recovery seen from inside a runtime whose CLI died mid-turn (the runtime itself lives). The
 * runtime dying is agent-ops/recover.ts's case; both build the same `[RESUME]` prompt.
 */
import { shortId } from '../core/ids.js';
import type { AgentEventInput } from '../core/events.js';
import { claimRecovery } from '../db/repos/checkpoints.js';
import { updateSession } from '../db/repos/sessions.js';
import type { RuntimeRequest } from '../agent-ops/launch.js';
import { resumePrompt } from '../agent-ops/recover.js';
import type { CliExit } from './cli-process.js';
import type { Deps } from './deps.js';

/**
 * The runtime's CLI died mid-turn (its runtime lives): claim the turn's recovery and return the
 * request that resumes the conversation; 'parked' with `ask` (the session waits for the person);
 * null when not recovering (off, or this turn was recovered once already). `flush` writes what the
 * CLI said before it died, ahead of the `recovered` line.
 */
export function recoverCli(
  d: Pick<Deps, 'db' | 'config' | 'session' | 'adapter' | 'log'>,
  exit: CliExit,
  flush: () => void,
  write: (e: AgentEventInput) => void,
): RuntimeRequest | 'parked' | null {
  const mode = d.config['agents.recover'];
  if (mode === 'off') return null;
  const cause = `${d.adapter.name} ${exit.signal ? `was killed (${exit.signal})` : `exited with code ${exit.code}`} mid-turn`;
  const cp = claimRecovery(d.db, d.session.id, mode === 'ask' ? { ask: cause } : {});
  if (!cp) return null;
  flush();
  if (mode === 'ask') {
    updateSession(d.db, d.session.id, { status: 'waiting' });
    write({ type: 'recovered', cause, mode: 'ask' });
    write({
      type: 'status',
      status: 'waiting',
      reason: `needs you: \`klaude message ${shortId(d.session.id)} "…"\` resumes it`,
    });
    return 'parked';
  }
  d.log.warn('agent CLI died mid-turn: resuming its conversation', { cause });
  return { prompt: resumePrompt(cp, cause), source: 'recover', recoverCause: cause };
}
