/**
 * The storage layer: only src/db imports drizzle and better-sqlite3. Importing this barrel loads
 * drizzle; hook fast paths import fast.ts and the drizzle-free repos (updates, events) directly.
 */
export * from './client.js';
export * from './connection.js';
export * from './fast.js';
export * from './ids.js';
export * from './schema.js';
export * from './repos/projects.js';
export * from './repos/instances.js';
export * from './repos/sessions.js';
export * from './repos/links.js';
export * from './repos/processes.js';
export * from './repos/events.js';
export * from './repos/updates.js';
export * from './repos/resolve.js';
