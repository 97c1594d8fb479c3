/**
 * What a YAML text parsed to, remembered across processes (`<home>/cache/parsed.json`): the next
 * command that reads the same config file or agent definition gets the result with JSON.parse
 * instead of loading the yaml library, which is the biggest piece of code most commands would
 * load (its evaluation costs start-up time, and a long-lived process like the dashboard keeps its
 * code in memory for good).
 *
 * Keyed by the exact text, so an edited file is parsed again; nothing is trusted by date. Only
 * results JSON keeps exactly are remembered (no NaN, Infinity, -0, binary or class instances).
 * A cache that cannot be read or written is no cache; a parse error is never remembered.
 *
 * Least recently used goes first, and the bounds are far above what one person's projects hold
 * (agent definitions are read all at once, so a cache smaller than the set evicts every entry
 * before its next use and nothing ever hits). A process writes the file at most once: at its
 * exit, when it parsed something new, merged with what others wrote meanwhile.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';

/** Entries kept: the config and the agent definitions of many projects. */
export const PARSE_CACHE_ENTRIES = 512;
/** Characters kept (texts and results), so a few huge texts cannot make every command read megabytes. */
export const PARSE_CACHE_CHARS = 2 * 1024 * 1024;

/** The result is kept as its JSON text: a hit is one JSON.parse (a fresh copy), its size is known. */
type Entry = [kind: string, text: string, json: string];

interface Cache {
  /** Oldest use first (a Map keeps insertion order; a hit moves its entry to the end). */
  entries: Map<string, Entry>;
  chars: number;
  /** Something new was parsed since the file was read. */
  dirty: boolean;
}

const caches = new Map<string, Cache>();
const written = new Set<string>();
let exitHook = false;

const keyOf = (kind: string, text: string): string => `${kind}\0${text}`;
const sizeOf = (e: Entry): number => e[1].length + e[2].length;

function readEntries(file: string): Entry[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { v?: unknown; entries?: unknown };
    if (parsed.v === 2 && Array.isArray(parsed.entries)) return parsed.entries as Entry[];
  } catch {
    /* missing or unreadable: nothing remembered */
  }
  return [];
}

function cacheOf(file: string): Cache {
  let c = caches.get(file);
  if (c) return c;
  c = { entries: new Map(), chars: 0, dirty: false };
  for (const e of readEntries(file)) put(c, e);
  caches.set(file, c);
  return c;
}

/** Add (or refresh) an entry as the newest, then drop the oldest beyond the bounds. */
function put(c: Cache, e: Entry): void {
  const key = keyOf(e[0], e[1]);
  const old = c.entries.get(key);
  if (old) {
    c.entries.delete(key);
    c.chars -= sizeOf(old);
  }
  c.entries.set(key, e);
  c.chars += sizeOf(e);
  for (const [k, v] of c.entries) {
    if (c.entries.size <= PARSE_CACHE_ENTRIES && c.chars <= PARSE_CACHE_CHARS) break;
    c.entries.delete(k);
    c.chars -= sizeOf(v);
  }
}

/** The file a home's cache lives in. */
export function parseCacheFile(home: string): string {
  return path.join(home, 'cache', 'parsed.json');
}

/**
 * `parse(text)`, or what it returned for this very text before (`kind` keeps different parsers'
 * results apart). `file` null: no cache.
 */
export function parseRemembered<T>(file: string | null, kind: string, text: string, parse: (text: string) => T): T {
  if (!file) return parse(text);
  const c = cacheOf(file);
  const key = keyOf(kind, text);
  const hit = c.entries.get(key);
  if (hit) {
    c.entries.delete(key); // now the most recently used
    c.entries.set(key, hit);
    // A copy, as a parse would give: a caller may change what it gets.
    return JSON.parse(hit[2]) as T;
  }
  const value = parse(text);
  if (!jsonExact(value)) return value;
  const json = JSON.stringify(value);
  put(c, [kind, text, json]);
  c.dirty = true;
  if (!exitHook) {
    exitHook = true;
    process.once('exit', flushParseCaches);
  }
  // The caller gets what a later process will get from the cache.
  return JSON.parse(json) as T;
}

/**
 * Write each cache that learnt something, once per process (later calls write nothing): what
 * others wrote since it was read is kept, as older than this process's entries. Called at exit.
 */
export function flushParseCaches(): void {
  for (const [file, c] of caches) {
    if (!c.dirty || written.has(file)) continue;
    written.add(file);
    const merged: Cache = { entries: new Map(), chars: 0, dirty: false };
    for (const e of readEntries(file)) if (!c.entries.has(keyOf(e[0], e[1]))) put(merged, e);
    for (const e of c.entries.values()) put(merged, e);
    try {
      ensurePrivateDir(path.dirname(file));
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ v: 2, entries: [...merged.entries.values()] }), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      /* read-only home, full disk: parse again next time */
    }
  }
}

/** Whether JSON.stringify then JSON.parse gives back an equal value. */
export function jsonExact(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonExact(v[i])) return false;
    return true;
  }
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k of Object.keys(v)) if (k === '__proto__' || !jsonExact((v as Record<string, unknown>)[k])) return false;
  return Object.getOwnPropertySymbols(v).length === 0;
}
