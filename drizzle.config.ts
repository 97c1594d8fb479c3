import { defineConfig } from 'drizzle-kit';

// `npm run db:generate -- --name <what>` writes a new migration into drizzle/ (committed, shipped,
// never hand-edited). src/db/client.ts applies them at open time under a cross-process lock.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
