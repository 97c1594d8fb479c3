/**
 * The run queue's order as SQL fragments, shared by every reader and writer of the queue
 * (queue.ts, queue-order.ts, the listings). Plain strings and no imports: the listings run in
 * hooks and `klaude sessions` without drizzle.
 */

/** `ORDER BY` of the queue, for a table aliased `alias`: higher priority, then order key, then id. */
export const queueOrderBy = (alias: string): string =>
  `${alias}.priority DESC, COALESCE(${alias}.queue_order, ${alias}.queued_at), ${alias}.id`;

/** Rows of `alias` ahead of (or at) the row `me` in the queue, as an SQL condition. */
export const queueAheadOrAt = (alias: string, me: string): string =>
  `(${alias}.priority > ${me}.priority OR (${alias}.priority = ${me}.priority AND (
     COALESCE(${alias}.queue_order, ${alias}.queued_at) < COALESCE(${me}.queue_order, ${me}.queued_at)
     OR (COALESCE(${alias}.queue_order, ${alias}.queued_at) = COALESCE(${me}.queue_order, ${me}.queued_at) AND ${alias}.id <= ${me}.id))))`;
