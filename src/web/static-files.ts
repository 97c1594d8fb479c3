/**
 * The page: one bundle, its lazily loaded chunks (the terminal) and a few files built into
 * `dist/web/` (scripts/build.mjs, which also writes each one's gzip next to it). Only the list is
 * kept: a file is read from disk when asked for (a page loads them once; holding the bundles in
 * memory cost the idle server about a MiB). No CDN: the page works offline once loaded.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  file: string;
  /** Its gzip, when the build wrote one. */
  gzipFile: string | null;
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

/** `dist/web` seen from the running bundle (dist/cmd/… or dist/chunks/…). */
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
  const names = new Set(readdirSync(dir));
  for (const name of names) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const f = {
      file: path.join(dir, name),
      gzipFile: names.has(`${name}.gz`) ? path.join(dir, `${name}.gz`) : null,
      type,
    };
    files.set(`/${name}`, f);
    if (name === 'index.html') files.set('/', f);
  }
  return files;
}

/** The file's bytes, gzipped when it has a gzip and the client takes one; null when it is gone (a rebuild). */
export function readStatic(f: StaticFile, gzip: boolean): { body: Buffer; gzip: boolean } | null {
  try {
    return gzip && f.gzipFile
      ? { body: readFileSync(f.gzipFile), gzip: true }
      : { body: readFileSync(f.file), gzip: false };
  } catch {
    return null;
  }
}
