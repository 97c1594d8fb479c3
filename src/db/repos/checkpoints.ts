/**
 * Per-agent checkpoints (`agents.recover`): the turn's prompt, the tool calls made and the answer so
 * far, kept current by the runtime as events arrive, so a run that dies mid-turn can be resumed
 * with a resume prompt. Recovery is claimed in a transaction: at most once per turn.
 */
import { tx, type Db } from '../client.js';
import type { CheckpointRow } from '../schema.js';

export type { CheckpointRow };

const PARTIAL_MAX = 4000;
const TOOLS_MAX = 50;

export function getCheckpoint(db: Db, sessionId: string): CheckpointRow | undefined {
  const r = db.sqlite
    .prepare(
      `SELECT session_id AS sessionId, turn, in_turn AS inTurn, prompt, tool_calls AS toolCalls, partial_text AS partialText,
         recovered_turn AS recoveredTurn, ask_cause AS askCause, updated_at AS updatedAt FROM checkpoints WHERE session_id = ?`,
    )
    .get(sessionId) as (Omit<CheckpointRow, 'toolCalls'> & { toolCalls: string | null }) | undefined;
  return r ? { ...r, toolCalls: r.toolCalls ? (JSON.parse(r.toolCalls) as string[]) : [] } : undefined;
}

/** A new turn starts with `prompt`. */
export function beginTurn(db: Db, sessionId: string, prompt: string): void {
  db.sqlite
    .prepare(
      `INSERT INTO checkpoints (session_id, turn, in_turn, prompt, tool_calls, partial_text, updated_at) VALUES (?, 1, 1, ?, '[]', '', ?)
       ON CONFLICT(session_id) DO UPDATE SET turn = turn + 1, in_turn = 1, prompt = excluded.prompt, tool_calls = '[]',
         partial_text = '', ask_cause = NULL, updated_at = excluded.updated_at`,
    )
    .run(sessionId, prompt, Date.now());
}

/** A recovered turn goes on (same turn number, what was done is kept). */
export function continueTurn(db: Db, sessionId: string): void {
  db.sqlite
    .prepare('UPDATE checkpoints SET in_turn = 1, ask_cause = NULL, updated_at = ? WHERE session_id = ?')
    .run(Date.now(), sessionId);
}

export function noteToolCall(db: Db, sessionId: string, summary: string): void {
  const cp = getCheckpoint(db, sessionId);
  if (!cp?.inTurn) return;
  const calls = [...(cp.toolCalls ?? []), summary].slice(-TOOLS_MAX);
  db.sqlite
    .prepare('UPDATE checkpoints SET tool_calls = ?, updated_at = ? WHERE session_id = ?')
    .run(JSON.stringify(calls), Date.now(), sessionId);
}

/** Add assistant text to the turn's partial answer: a new block (`sep` between blocks) or a piece of the current one (`sep` ''). */
export function noteText(db: Db, sessionId: string, text: string, sep = '\n\n'): void {
  db.sqlite
    .prepare(
      `UPDATE checkpoints SET partial_text = substr(CASE WHEN partial_text = '' OR partial_text IS NULL THEN ? ELSE partial_text || ? || ? END, -${PARTIAL_MAX}),
         updated_at = ? WHERE session_id = ? AND in_turn = 1`,
    )
    .run(text, sep, text, Date.now(), sessionId);
}

export function endTurn(db: Db, sessionId: string): void {
  db.sqlite
    .prepare('UPDATE checkpoints SET in_turn = 0, ask_cause = NULL, updated_at = ? WHERE session_id = ?')
    .run(Date.now(), sessionId);
}

/**
 * Claim the recovery of the session's current turn: the checkpoint of a turn that was running and
 * has not been recovered yet. Marks it recovered (or, with `ask`, waiting for the person).
 */
export function claimRecovery(db: Db, sessionId: string, opts: { ask?: string } = {}): CheckpointRow | null {
  return tx(db, () => {
    const cp = getCheckpoint(db, sessionId);
    if (!cp || cp.inTurn !== 1 || cp.recoveredTurn === cp.turn) return null;
    db.sqlite
      .prepare('UPDATE checkpoints SET recovered_turn = turn, ask_cause = ?, updated_at = ? WHERE session_id = ?')
      .run(opts.ask ?? null, Date.now(), sessionId);
    return { ...cp, recoveredTurn: cp.turn, askCause: opts.ask ?? null };
  });
}

/** The session waits for the person after a crash (`agents.recover: ask`): its checkpoint. */
export function askedRecovery(db: Db, sessionId: string): CheckpointRow | null {
  const cp = getCheckpoint(db, sessionId);
  return cp?.askCause ? cp : null;
}

/** Sessions of the project whose checkpoint says a turn was running and not yet recovered (their runtime may be dead). */
export function midTurnSessionIds(db: Db, projectId: string): string[] {
  return db.sqlite
    .prepare(
      `SELECT c.session_id FROM checkpoints c JOIN sessions s ON s.id = c.session_id
       WHERE s.project_id = ? AND c.in_turn = 1 AND (c.recovered_turn IS NULL OR c.recovered_turn < c.turn)
         AND s.status IN ('pending', 'running', 'waiting', 'interrupted')`,
    )
    .pluck()
    .all(projectId) as string[];
}
