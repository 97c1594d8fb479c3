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
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';

/** Entries kept (the config, and the agent definitions of a few projects). */
const MAX_ENTRIES = 64;

type Entry = [kind: string, text: string, value: unknown];

const loaded = new Map<string, Entry[]>();

function entriesOf(file: string): Entry[] {
  let entries = loaded.get(file);
  if (entries) return entries;
  entries = [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { v?: unknown; entries?: unknown };
    if (parsed.v === 1 && Array.isArray(parsed.entries)) entries = parsed.entries as Entry[];
  } catch {
    /* missing or unreadable: start empty */
  }
  loaded.set(file, entries);
  return entries;
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
  const entries = entriesOf(file);
  const hit = entries.find((e) => e[0] === kind && e[1] === text);
  // A copy, as a parse would give: a caller may change what it gets.
  if (hit) return JSON.parse(JSON.stringify(hit[2])) as T;
  const value = parse(text);
  if (!jsonExact(value)) return value;
  const kept = entries.filter((e) => !(e[0] === kind && e[1] === text));
  kept.push([kind, text, value]);
  const next = kept.slice(-MAX_ENTRIES);
  loaded.set(file, next);
  try {
    ensurePrivateDir(path.dirname(file));
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ v: 1, entries: next }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    /* read-only home, full disk: parse again next time */
  }
  // The caller gets what a later process will get from the cache.
  return JSON.parse(JSON.stringify(value)) as T;
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
