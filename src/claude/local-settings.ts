/**
 * Claude Code's local settings (`<cwd>/.claude/settings.local.json`: untracked, the person's own
 * permission rules) for agents in a worktree. The worktree is a fresh checkout: the project's file
 * is not there, so its rules would not apply and calls the project allows would be asked again;
 * and an "allow always" rule claude writes there would live only as long as the worktree.
 *
 * So klaude (1) hands the project's file to a worktree agent's claude in the one `--settings`
 * claude takes, merged with klaude's hooks and written to a private file (the local settings can
 * hold `env` secrets, which a command line shows to every user of the machine); and (2) writes an
 * "always" rule of a worktree agent into the project's own file, telling claude to keep it for the
 * session only (`destination: "session"`) so it writes nothing into the worktree.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';

/**
 * Claude Code's own project settings files (`.claude/settings.json`, `.claude/settings.local.json`,
 * at any depth of the tree): claude itself rewrites them during a run (2.1.332 does after a plain
 * headless run: docs/claude-versions.md), so a change git sees there is not the agent's work.
 */
const CLAUDE_SETTINGS_FILE = /(^|[\\/])\.claude[\\/]settings(\.local)?\.json$/;

/** True for a path (relative or absolute) that is one of Claude Code's own settings files. */
export function isClaudeSettingsFile(p: string): boolean {
  return CLAUDE_SETTINGS_FILE.test(p);
}

/** The local settings file of a directory claude runs in. */
export function localSettingsFile(dir: string): string {
  return path.join(dir, '.claude', 'settings.local.json');
}

/**
 * The directory whose local settings belong to an agent running in `cwd`: the same place in the
 * project for an agent in a worktree (cwd is the worktree or a sub-directory of it), else cwd.
 */
export function ownSettingsDir(o: { cwd: string; worktreePath: string | null; projectRoot: string }): string {
  if (!o.worktreePath) return o.cwd;
  const rel = path.relative(o.worktreePath, o.cwd);
  return rel.startsWith('..') || path.isAbsolute(rel) ? o.projectRoot : path.join(o.projectRoot, rel);
}

/** The settings in a JSON file, or null when it is missing or not an object of JSON. */
export function readSettingsFile(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Write JSON settings whole (temp + rename): a claude reading the file never sees half of it. */
export function writeSettingsFile(file: string, settings: Record<string, unknown>, mode = 0o600): void {
  ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(settings, null, 2)}\n`, { mode });
  renameSync(tmp, file);
}

type Rule = { toolName: string; ruleContent?: string };
type Update = { type?: string; destination?: string; behavior?: string; rules?: Rule[]; directories?: string[] };

/** A rule as claude writes it in a settings file: `Tool(content)`, with `\`, `(` and `)` escaped. */
export function ruleString(r: Rule): string {
  if (!r.ruleContent) return r.toolName;
  const content = r.ruleContent.replaceAll('\\', '\\\\').replaceAll('(', '\\(').replaceAll(')', '\\)');
  return `${r.toolName}(${content})`;
}

function addUnique(list: unknown, items: string[]): string[] {
  const out = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  for (const i of items) if (!out.includes(i)) out.push(i);
  return out;
}

/**
 * Persist the permission updates meant for local settings (`addRules`, `addDirectories`: what
 * claude's "always" suggestions hold) into `file`, as claude would. Returns the rules written.
 */
export function persistPermissionUpdates(file: string, updates: unknown): string[] {
  const local = (Array.isArray(updates) ? (updates as Update[]) : []).filter(
    (u) => u && u.destination === 'localSettings',
  );
  if (local.length === 0) return [];
  const settings = readSettingsFile(file) ?? {};
  const perms = { ...((settings.permissions as Record<string, unknown> | undefined) ?? {}) };
  const written: string[] = [];
  for (const u of local) {
    if (u.type === 'addRules' && (u.behavior === 'allow' || u.behavior === 'deny' || u.behavior === 'ask')) {
      const rules = (u.rules ?? []).map(ruleString);
      perms[u.behavior] = addUnique(perms[u.behavior], rules);
      written.push(...rules);
    } else if (u.type === 'addDirectories') {
      perms.additionalDirectories = addUnique(perms.additionalDirectories, u.directories ?? []);
    }
  }
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  writeSettingsFile(file, { ...settings, permissions: perms }, mode);
  return written;
}

/** The same updates, kept by claude for this session only (it writes no file). */
export function forSessionOnly(updates: unknown): unknown {
  if (!Array.isArray(updates)) return updates;
  return (updates as Update[]).map((u) =>
    u && u.destination === 'localSettings' ? { ...u, destination: 'session' } : u,
  );
}

/**
 * The "allow always" updates to send to an agent's claude. For an agent in a worktree the rules
 * are written into the project's own local settings here, and claude keeps them for the session;
 * if that write fails, claude gets them as they were (and writes the worktree's copy, as before).
 */
export function routeAlwaysRules(
  updates: unknown,
  o: { cwd: string; worktreePath: string | null; projectRoot: string; warn?: (msg: string, err: unknown) => void },
): unknown {
  if (!o.worktreePath) return updates;
  try {
    persistPermissionUpdates(localSettingsFile(ownSettingsDir(o)), updates);
    return forSessionOnly(updates);
  } catch (err) {
    o.warn?.("writing the rule into the project's local settings failed", err);
    return updates;
  }
}
