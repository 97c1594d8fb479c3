import { eq } from 'drizzle-orm';
import type { Db } from '../client.js';
import { projects, type ProjectRow } from '../schema.js';

export type { ProjectRow };

/**
 * Insert the project if missing and return it. Idempotent and race-free (INSERT … ON CONFLICT DO
 * NOTHING, then read). The hash is `projectHash(rootPath)`, so one root always maps to one row.
 */
export function ensureProject(db: Db, p: { hash: string; rootPath: string }): ProjectRow {
  db.orm.insert(projects).values({ id: p.hash, rootPath: p.rootPath }).onConflictDoNothing().run();
  const row = getProject(db, p.hash);
  if (!row) throw new Error(`project ${p.hash} vanished after insert`);
  return row;
}

export function getProject(db: Db, id: string): ProjectRow | undefined {
  return db.orm.select().from(projects).where(eq(projects.id, id)).get();
}
