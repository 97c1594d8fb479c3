/**
 * The page: one bundle and a few files built into `dist/web/` (scripts/build.mjs), read once at
 * start and kept in memory, gzipped once. No CDN: the page works offline once loaded.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface StaticFile {
  body: Buffer;
  gzip: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** `dist/web` seen from the running bundle (dist/cli.js or dist/chunks/…). */
export function findPageDir(from: string = path.dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    for (const c of [path.join(dir, 'web'), path.join(dir, 'dist', 'web')])
      if (existsSync(path.join(c, 'index.html'))) return c;
    if (path.dirname(dir) === dir) return null;
  }
}

/** Every file of the page by URL path (`/` is index.html). */
export function loadPage(dir: string | null): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!dir) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = readFileSync(path.join(dir, name));
    const f = { body, gzip: gzipSync(body), type };
    files.set(`/${name}`, f);
    if (name === 'index.html') files.set('/', f);
  }
  return files;
}
