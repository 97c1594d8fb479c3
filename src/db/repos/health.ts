/**
 * What `klaude doctor` asks of the database file, read-only: SQLite's integrity check and which
 * migrations the file has, compared with the ones this klaude knows. Opened without the usual
 * open (client.ts), which would migrate a DB that is behind or refuse one from a newer klaude:
 * here both are findings to report.
 */
import journal from '../../../drizzle/meta/_journal.json' with { type: 'json' };
import { openSqlite, SCHEMA_VERSION } from '../connection.js';

export interface DbHealth {
  /** `PRAGMA integrity_check`'s findings; ['ok'] when the file is sound. */
  integrity: string[];
  /** `PRAGMA user_version`: how many migrations the file says it has. */
  userVersion: number;
  /** How many migrations this klaude knows. */
  known: number;
  /** The newest applied migration's time (drizzle's `created_at`), null when none is recorded. */
  newestApplied: number | null;
  /** The newest migration's time this klaude knows (drizzle/meta/_journal.json `when`). */
  newestKnown: number;
}

const NEWEST_KNOWN: number = journal.entries.reduce((max, e) => Math.max(max, e.when), 0);

/** Inspect `file` (it must exist); throws SQLite's error when it is not a database at all. */
export function inspectDbFile(file: string): DbHealth {
  const sqlite = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    const integrity = (sqlite.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    const userVersion = Number(sqlite.pragma('user_version', { simple: true }));
    const hasTable = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      .get();
    const newest = hasTable
      ? (sqlite.prepare('SELECT max(created_at) AS at FROM "__drizzle_migrations"').get() as { at: number | null }).at
      : null;
    return {
      integrity,
      userVersion,
      known: SCHEMA_VERSION,
      newestApplied: newest === null ? null : Number(newest),
      newestKnown: NEWEST_KNOWN,
    };
  } finally {
    sqlite.close();
  }
}
