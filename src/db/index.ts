/** The storage layer: only src/db imports drizzle and better-sqlite3. */
export * from './client.js';
export * from './schema.js';
export * from './repos/projects.js';
export * from './repos/instances.js';
export * from './repos/sessions.js';
export * from './repos/links.js';
export * from './repos/processes.js';
export * from './repos/events.js';
export * from './repos/updates.js';
export * from './repos/resolve.js';
export * from './ids.js';
