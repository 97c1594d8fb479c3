/**
 * Which of Claude Code's transcript files belong to a klaude session (plain SQL over its Claude
 * links): kept apart from agent-ops/timeline.ts, which reads and follows them, so a command that
 * only asks the question does not load the transcript normaliser and the log follower.
 */
import type { HasSqlite } from '../connection.js';
import type { SessionRow } from '../schema.js';

/**
 * The transcript files of a session that ran interactively at least once (a TUI session, or a
 * link made by Claude's SessionStart hook rather than by a headless runtime), oldest first.
 * Empty for a session that only ever ran headless: its log says everything.
 */
export function transcriptsOf(
  db: HasSqlite,
  s: Pick<SessionRow, 'id' | 'type'> & { transcriptPath?: string | null },
): string[] {
  const links = db.sqlite
    .prepare(
      `SELECT source, transcript_path AS transcriptPath FROM claude_session_links
       WHERE klaude_session_id = ? ORDER BY started_at, id`,
    )
    .all(s.id) as { source: string; transcriptPath: string | null }[];
  const interactive = s.type === 'tui' || links.some((l) => l.source !== 'headless');
  if (!interactive) return [];
  const files = links.map((l) => l.transcriptPath).filter((p): p is string => !!p);
  if (s.transcriptPath && !files.includes(s.transcriptPath)) files.push(s.transcriptPath);
  return [...new Set(files)];
}
