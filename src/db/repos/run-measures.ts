/**
 * What completed runs did (tool calls, characters of output), per agent type and project: the
 * basis of the progress estimate of later runs (core/progress.ts). Medians of the newest runs, so
 * an agent type that changed (a new definition, a new model) is judged by how it works now.
 */
import { median, type Baseline } from '../../core/progress.js';
import type { Db } from '../client.js';
import type { HasSqlite } from '../connection.js';

/** How many of the newest completed runs the medians are taken over. */
export const BASELINE_RUNS = 25;

export interface RunMeasureRow {
  projectId: string;
  sessionId: string;
  type: string;
  runtime: string;
  toolCalls: number;
  outputChars: number;
  durationMs: number | null;
}

export function recordRunMeasure(db: Db, m: RunMeasureRow, now: number = Date.now()): void {
  db.sqlite
    .prepare(
      `INSERT INTO run_measures (project_id, session_id, type, runtime, tool_calls, output_chars, duration_ms, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(m.projectId, m.sessionId, m.type, m.runtime, m.toolCalls, m.outputChars, m.durationMs, now);
}

/** The newest completed runs of `type` in the project, as medians (null: none yet). */
export function runBaseline(db: HasSqlite, projectId: string, type: string): Baseline | null {
  const rows = db.sqlite
    .prepare(
      `SELECT tool_calls AS toolCalls, output_chars AS outputChars FROM run_measures
       WHERE project_id = ? AND type = ? ORDER BY ended_at DESC, id DESC LIMIT ${BASELINE_RUNS}`,
    )
    .all(projectId, type) as { toolCalls: number; outputChars: number }[];
  if (rows.length === 0) return null;
  return {
    runs: rows.length,
    toolCalls: median(rows.map((r) => r.toolCalls)),
    outputChars: median(rows.map((r) => r.outputChars)),
  };
}
