/**
 * Where the enabled Claude Code plugins' skills are (agent-types/skills.ts), read from claude's own
 * files as `claude plugin install` leaves them (checked with 2.1.197 and 2.1.332):
 * - `<config dir>/plugins/installed_plugins.json`: `{version: 2, plugins: {"<name>@<marketplace>":
 *   [{scope, installPath, projectPath?}]}}` (version 1: `{plugins: {id: {installPath?}}}`);
 * - `enabledPlugins: {"<id>": true|false}` in `<config dir>/settings.json`, the project's
 *   `.claude/settings.json` and `.claude/settings.local.json` (the later wins);
 * - a plugin from a `directory` marketplace (`plugins/known_marketplaces.json`) is read where that
 *   directory has it, as claude does, not from the cached copy; any other from its install path.
 * A plugin's name is its `.claude-plugin/plugin.json` `name`; its skills are in `skills/` and the
 * directories its manifest's `skills` lists.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeConfigDir } from '../claude/config-dir.js';

export interface PluginRoot {
  name: string;
  root: string;
  /** Its skills directories (each holding `<skill>/SKILL.md`). */
  dirs: string[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The project's top level seen from `cwd` (where `.claude/settings*.json` are): the nearest directory with `.git`, else `cwd`. */
function topOf(cwd: string): string {
  for (let d = path.resolve(cwd); ;) {
    if (existsSync(path.join(d, '.git'))) return d;
    const up = path.dirname(d);
    if (up === d) return path.resolve(cwd);
    d = up;
  }
}

/** Which plugin ids are on: user settings, then the project's, then its local ones. */
function enabledIds(config: string, top: string): Set<string> {
  const on = new Map<string, boolean>();
  for (const f of [
    path.join(config, 'settings.json'),
    path.join(top, '.claude', 'settings.json'),
    path.join(top, '.claude', 'settings.local.json'),
  ]) {
    const s = readJson(f);
    const map = isObj(s) && isObj(s.enabledPlugins) ? s.enabledPlugins : {};
    for (const [id, v] of Object.entries(map)) if (typeof v === 'boolean') on.set(id, v);
  }
  return new Set([...on].filter(([, v]) => v).map(([id]) => id));
}

/** Install paths by plugin id (entries of another project's scope left out). */
function installed(config: string, top: string): Map<string, string> {
  const data = readJson(path.join(config, 'plugins', 'installed_plugins.json'));
  const plugins = isObj(data) && isObj(data.plugins) ? data.plugins : {};
  const out = new Map<string, string>();
  for (const [id, v] of Object.entries(plugins)) {
    const entries = Array.isArray(v) ? v : [v];
    for (const e of entries) {
      if (!isObj(e) || typeof e.installPath !== 'string') continue;
      if (typeof e.projectPath === 'string' && path.resolve(e.projectPath) !== top) continue;
      out.set(id, e.installPath);
      break;
    }
  }
  return out;
}

/** A `directory` marketplace's own copy of the plugin, when it has one. */
function fromDirectoryMarketplace(config: string, id: string): string | null {
  const at = id.lastIndexOf('@');
  if (at <= 0) return null;
  const [plugin, market] = [id.slice(0, at), id.slice(at + 1)];
  const known = readJson(path.join(config, 'plugins', 'known_marketplaces.json'));
  const m = isObj(known) ? known[market] : undefined;
  const src = isObj(m) && isObj(m.source) ? m.source : null;
  if (!src || src.source !== 'directory' || typeof src.path !== 'string') return null;
  const manifest = readJson(path.join(src.path, '.claude-plugin', 'marketplace.json'));
  const list = isObj(manifest) && Array.isArray(manifest.plugins) ? manifest.plugins : [];
  const entry = list.find((p): p is Record<string, unknown> => isObj(p) && p.name === plugin);
  if (!entry || typeof entry.source !== 'string') return null;
  const dir = path.resolve(src.path, entry.source);
  return existsSync(dir) ? dir : null;
}

/** The enabled, installed plugins and their skills directories. */
export function pluginRoots(o: { cwd: string; env: NodeJS.ProcessEnv }): PluginRoot[] {
  const config = claudeConfigDir(o.env);
  const top = topOf(o.cwd);
  const on = enabledIds(config, top);
  if (on.size === 0) return [];
  const out: PluginRoot[] = [];
  for (const [id, installPath] of installed(config, top)) {
    if (!on.has(id)) continue;
    const root = fromDirectoryMarketplace(config, id) ?? installPath;
    const manifest = readJson(path.join(root, '.claude-plugin', 'plugin.json'));
    const named = isObj(manifest) && typeof manifest.name === 'string' && manifest.name ? manifest.name : null;
    const name = named ?? id.slice(0, id.lastIndexOf('@') > 0 ? id.lastIndexOf('@') : id.length);
    const listed = isObj(manifest) ? manifest.skills : undefined;
    const extra = (typeof listed === 'string' ? [listed] : Array.isArray(listed) ? listed : [])
      .filter((p): p is string => typeof p === 'string')
      .map((p) => path.resolve(root, p));
    out.push({
      name,
      root,
      dirs: [path.join(root, 'skills'), ...extra.filter((d) => d !== path.join(root, 'skills'))],
    });
  }
  return out;
}
