import { monotonicFactory } from 'ulid';

/**
 * A new klaude id: a ULID, monotonic within this process (ids made in the same millisecond still
 * sort in creation order, so `ORDER BY created_at, id` is stable).
 */
export const newId: () => string = monotonicFactory();
