/**
 * Load `<home>/config.yaml`, validate every key against the schema and merge over the
 * defaults. A bad file is an error naming the key and the expected type — never a
 * silent fallback, so a typo doesn't quietly change behaviour.
 */
import { readFileSync } from 'node:fs';
import { closestName } from '../lib/closest.js';
import { KlaudeError } from '../lib/errors.js';
import { parseCacheFile, parseRemembered } from './parse-cache.js';
import { yaml } from './yaml.js';
import { configPath } from './paths.js';
import { parseZones } from './zones.js';
import {
  CONFIG_KEYS,
  type Config,
  type ConfigKey,
  type KeySpec,
  type OnStopPrompt,
  defaultConfig,
  describeType,
} from './schema.js';

export interface LoadedConfig {
  config: Config;
  path: string;
  exists: boolean;
  /** Keys set by the file (the rest are defaults). */
  fromFile: Set<ConfigKey>;
  /** Old spellings that still work, with what to write instead (`klaude config` prints them). */
  warnings: string[];
}

/**
 * The design notes' keys (the first config sketch): mapped to today's key, or accepted and
 * ignored where klaude decides the place itself. Each use gets a deprecation warning.
 */
const RENAMED: Record<string, { to?: ConfigKey; why?: string }> = {
  'wrapper.claudeBinary': { to: 'claude.binary' },
  'wrapper.socketDir': { why: 'klaude puts sockets under <home>/run (or the temp dir when that path is too long)' },
  'db.path': { why: 'the database is always <home>/sessions.db (set KLAUDE_HOME to move everything)' },
};

function configError(file: string, message: string, hint?: string): KlaudeError {
  return new KlaudeError('E_CONFIG', `${file}: ${message}`, {
    hint: hint ?? 'fix the file, or run `klaude config --keys` for every key and its type',
  });
}

/** Flatten nested YAML maps into dotted keys: {switch: {graceSeconds: 1}} → {'switch.graceSeconds': 1}. */
function flatten(
  obj: Record<string, unknown>,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    const isMap = v !== null && typeof v === 'object' && !Array.isArray(v);
    if (isMap && !(key in CONFIG_KEYS)) flatten(v as Record<string, unknown>, key, out);
    else out[key] = v;
  }
  return out;
}

function closestKey(key: string): string | undefined {
  const lower = key.toLowerCase();
  const keys = Object.keys(CONFIG_KEYS);
  return (
    keys.find((k) => k.toLowerCase() === lower) ??
    keys.find((k) => k.split('.').pop()!.toLowerCase() === lower.split('.').pop()) ??
    keys.find((k) => k.toLowerCase().startsWith(lower) || lower.startsWith(k.toLowerCase())) ??
    closestName(key, keys)
  );
}

const ARTIFACT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/** `[{prompt, artifact}]`, shared by the config key and the agent definition field `onStop`. */
export function parseOnStop(value: unknown, where: string): OnStopPrompt[] {
  if (!Array.isArray(value))
    throw new Error(`${where} must be a list of {prompt, artifact} mappings (got ${JSON.stringify(value)})`);
  const seen = new Set<string>();
  return value.map((item, i) => {
    const o = item as Record<string, unknown> | null;
    if (o === null || typeof o !== 'object' || Array.isArray(o))
      throw new Error(`${where} item ${i + 1} must be a mapping with prompt and artifact`);
    const extra = Object.keys(o).filter((k) => k !== 'prompt' && k !== 'artifact');
    if (extra.length) throw new Error(`${where} item ${i + 1}: unknown field '${extra[0]}' (only prompt and artifact)`);
    if (typeof o.prompt !== 'string' || o.prompt.trim() === '')
      throw new Error(`${where} item ${i + 1}: prompt must be a non-empty string`);
    if (typeof o.artifact !== 'string' || !ARTIFACT_NAME.test(o.artifact)) {
      throw new Error(
        `${where} item ${i + 1}: artifact must be a name of letters, digits, '_', '.', '-' (got ${JSON.stringify(o.artifact)})`,
      );
    }
    if (seen.has(o.artifact)) throw new Error(`${where}: artifact '${o.artifact}' is named twice`);
    seen.add(o.artifact);
    return { prompt: o.prompt.trim(), artifact: o.artifact };
  });
}

export function validateValue(key: ConfigKey, spec: KeySpec, value: unknown): unknown {
  const bad = (): never => {
    throw new Error(`${key} must be ${describeType(spec)} (got ${JSON.stringify(value)})`);
  };
  switch (spec.type) {
    case 'string':
      if (value === null && spec.nullable) return null;
      if (typeof value !== 'string' || value.trim() === '') bad();
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) bad();
      if (spec.min !== undefined && (value as number) < spec.min) bad();
      if (spec.max !== undefined && (value as number) > spec.max) bad();
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') bad();
      return value;
    case 'enum':
      if (typeof value !== 'string' || !spec.values.includes(value)) bad();
      return value;
    case 'string[]':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) bad();
      return value;
    case 'onStop':
      return parseOnStop(value, key);
    case 'zones':
      return parseZones(value);
  }
}

/** Parse a config file's text (`cacheFile`: remember the YAML's result there, config/parse-cache.ts). */
export function parseConfig(
  text: string,
  file: string,
  cacheFile: string | null = null,
): { config: Config; fromFile: Set<ConfigKey>; warnings: string[] } {
  let doc: unknown;
  try {
    doc = parseRemembered(cacheFile, 'config', text, (t) => yaml().parse(t) as unknown);
  } catch (e) {
    const where = e instanceof yaml().YAMLParseError && e.linePos ? ` at line ${e.linePos[0].line}` : '';
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw configError(file, `not valid YAML${where}: ${msg}`);
  }
  const config = defaultConfig();
  const fromFile = new Set<ConfigKey>();
  const warnings: string[] = [];
  if (doc === null || doc === undefined) return { config, fromFile, warnings };
  if (typeof doc !== 'object' || Array.isArray(doc)) throw configError(file, 'must be a mapping of keys to values');
  // Every problem of the file at once: fixing them one run at a time is tedious.
  const problems: string[] = [];
  const entries = Object.entries(flatten(doc as Record<string, unknown>));
  for (const [key, value] of entries) {
    const old = RENAMED[key];
    if (old) {
      if (old.to && entries.some(([k]) => k === old.to)) {
        warnings.push(`${file}: '${key}' is ignored: '${old.to}' is set too; remove '${key}'`);
        continue;
      }
      warnings.push(
        old.to
          ? `${file}: '${key}' is deprecated: write '${old.to}' instead`
          : `${file}: '${key}' is deprecated and ignored: ${old.why}`,
      );
      if (!old.to) continue;
    }
    const k = (old?.to ?? key) as ConfigKey;
    if (!(k in CONFIG_KEYS)) {
      const near = closestKey(key);
      problems.push(`unknown key '${key}'${near ? ` (did you mean '${near}'?)` : ''}`);
      continue;
    }
    try {
      (config as Record<string, unknown>)[k] = validateValue(k, CONFIG_KEYS[k], value);
    } catch (e) {
      problems.push((e as Error).message);
      continue;
    }
    fromFile.add(k);
  }
  if (problems.length === 1) throw configError(file, problems[0]!);
  if (problems.length > 1) throw configError(file, `${problems.length} problems: ${problems.join('; ')}`);
  return { config, fromFile, warnings };
}

export function loadConfig(home: string): LoadedConfig {
  const file = configPath(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return { config: defaultConfig(), path: file, exists: false, fromFile: new Set(), warnings: [] };
    }
    throw new KlaudeError('E_CONFIG', `${file}: cannot read: ${(e as Error).message}`);
  }
  const { config, fromFile, warnings } = parseConfig(text, file, parseCacheFile(home));
  return { config, path: file, exists: true, fromFile, warnings };
}
