/**
 * The `zones` key of the config file: each zone a mapping {ssh, path, klaude?, sshOptions?}
 * (schema.ts ZoneSpec, docs/zones.md). Checked here so a typo fails at load with the zone named,
 * and so nothing that reaches an `ssh` command line can be read by ssh as an option of its own.
 */
import type { ZoneSpec } from './schema.js';

/** A zone's name: what `--zone` takes and what rows are marked with. */
export const ZONE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

const FIELDS = new Set(['ssh', 'path', 'klaude', 'sshOptions']);

function text(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${where} must be a non-empty string`);
  return v.trim();
}

/** One zone's mapping, checked. */
export function parseZone(name: string, value: unknown): ZoneSpec {
  const where = `zones.${name}`;
  if (!ZONE_NAME.test(name))
    throw new Error(
      `'${name}' is not a zone name (letters, digits, '_' and '-', at most 32, starting with a letter or digit)`,
    );
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${where} must be a mapping with ssh and path`);
  const o = value as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !FIELDS.has(k));
  if (extra) throw new Error(`${where}: unknown field '${extra}' (ssh, path, klaude, sshOptions)`);
  const ssh = text(o.ssh, `${where}.ssh`);
  // ssh would take a destination starting with '-' as an option (ProxyCommand=… runs anything).
  if (ssh.startsWith('-') || /\s/.test(ssh)) throw new Error(`${where}.ssh must be a destination like user@host`);
  const spec: ZoneSpec = { ssh, path: text(o.path, `${where}.path`) };
  if (o.klaude !== undefined) spec.klaude = text(o.klaude, `${where}.klaude`);
  if (o.sshOptions !== undefined) {
    if (!Array.isArray(o.sshOptions) || o.sshOptions.some((x) => typeof x !== 'string'))
      throw new Error(`${where}.sshOptions must be a list of strings`);
    spec.sshOptions = o.sshOptions as string[];
  }
  return spec;
}

/** The whole `zones` mapping, checked. */
export function parseZones(value: unknown): Record<string, ZoneSpec> {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('zones must be a mapping of zone names');
  const out: Record<string, ZoneSpec> = {};
  for (const [name, spec] of Object.entries(value as Record<string, unknown>)) out[name] = parseZone(name, spec);
  return out;
}
