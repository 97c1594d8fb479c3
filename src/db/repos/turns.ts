/**
 * An interactive session's turn as the transcript follower (claude/transcript-follower.ts) sees
 * it, in raw SQL over a drizzle-free connection: the PTY server follows transcripts too, and loads
 * no drizzle (see pty-records.ts).
 */
import type { HasSqlite } from '../connection.js';

export interface TurnRow {
  status: string;
  runStartedAt: number | null;
  transcriptPath: string | null;
  projectId: string;
}

export function readTurn(db: HasSqlite, id: string): TurnRow | undefined {
  return db.sqlite
    .prepare(
      'SELECT status, run_started_at AS runStartedAt, transcript_path AS transcriptPath, project_id AS projectId FROM sessions WHERE id = ?',
    )
    .get(id) as TurnRow | undefined;
}

/** The turn is over with no hook to say so: idle, doing nothing. */
export function endTurnIdle(db: HasSqlite, sessionId: string): void {
  db.sqlite
    .prepare("UPDATE sessions SET status = 'idle', activity = NULL, updated_at = ? WHERE id = ?")
    .run(Date.now(), sessionId);
}
