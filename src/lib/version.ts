import { createRequire } from 'node:module';

declare const __KLAUDE_VERSION__: string | undefined;

/** Injected by the esbuild build; read from package.json when running from sources (tests). */
export const VERSION: string =
  typeof __KLAUDE_VERSION__ === 'string'
    ? __KLAUDE_VERSION__
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
