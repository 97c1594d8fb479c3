/**
 * Claude Code skills, found the way claude finds them (checked in the 2.1.197 and 2.1.332 binaries
 * and by running them; docs/claude-versions.md "Skills"):
 *   1. managed: `/etc/claude-code/.claude/skills/<name>/SKILL.md` (macOS: /Library/Application
 *      Support/ClaudeCode; off with CLAUDE_CODE_DISABLE_POLICY_SKILLS);
 *   2. personal: `<claude config dir>/skills/<name>/SKILL.md` (`~/.claude`, or $CLAUDE_CONFIG_DIR);
 *   3. project: `.claude/skills/<name>/SKILL.md` of the working directory and of each directory above
 *      it up to the git top level (not the home), nearest first;
 *   4. plugins: `<plugin>/skills/<name>/SKILL.md` of each enabled, installed plugin, named
 *      `<plugin>:<name>`.
 * A skill is called by its directory's name (its frontmatter `name` works too); on a clash the
 * first of that order wins (claude runs the personal `greet` over the project's). A bare name that
 * only plugins have resolves to the one plugin skill of that name; several are ambiguous (claude
 * would silently take the first; klaude names them and refuses).
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { claudeConfigDir, userHome } from '../claude/config-dir.js';
import { KlaudeError } from '../lib/errors.js';
import { parseFrontmatter } from './frontmatter.js';
import { pluginRoots } from './plugin-skills.js';

export type SkillSource = 'managed' | 'personal' | 'project' | 'plugin';

export interface Skill {
  /** How claude calls it: `/<name>` (`<plugin>:<dir>` for a plugin's). */
  name: string;
  /** Its frontmatter `name`, when that differs (claude takes it too). */
  alias: string | null;
  description: string | null;
  source: SkillSource;
  /** The plugin it comes with (plugin skills). */
  plugin: string | null;
  /** Its directory and its SKILL.md. */
  dir: string;
  file: string;
  /** The skill of the same name that wins over this one (listings only). */
  shadowedBy: string | null;
}

export interface SkillLookup {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** SKILL.md files larger than this are skipped, as claude skips them. */
const SKILL_FILE_MAX = 1024 * 1024;

export function managedSkillsDir(): string {
  const base =
    process.platform === 'darwin'
      ? '/Library/Application Support/ClaudeCode'
      : process.platform === 'win32'
        ? 'C:\\Program Files\\ClaudeCode'
        : '/etc/claude-code';
  return path.join(base, '.claude', 'skills');
}

/** The project's `.claude/skills` directories: the working directory's and each one above it to the git top level, nearest first. */
export function projectSkillDirs(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const home = path.resolve(userHome(env));
  const out: string[] = [];
  for (let dir = path.resolve(cwd); dir !== home;) {
    const d = path.join(dir, '.claude', 'skills');
    if (existsSync(d)) out.push(d);
    if (existsSync(path.join(dir, '.git'))) break; // the git top level (a worktree's `.git` is a file)
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

function readSkill(dir: string, dirName: string, source: SkillSource, plugin: string | null): Skill | null {
  const file = path.join(dir, 'SKILL.md');
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > SKILL_FILE_MAX) return null;
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let data: Record<string, unknown> = {};
  try {
    data = parseFrontmatter(text).data;
  } catch {
    data = {}; // no (or broken) frontmatter: claude loads the skill all the same
  }
  const fmName = typeof data.name === 'string' && data.name.trim() ? data.name.trim() : null;
  const desc = typeof data.description === 'string' && data.description.trim() ? data.description.trim() : null;
  const name = plugin ? `${plugin}:${dirName}` : dirName;
  const alias = fmName && fmName !== dirName ? (plugin ? `${plugin}:${fmName}` : fmName) : null;
  return { name, alias, description: desc, source, plugin, dir, file, shadowedBy: null };
}

/** The skills of one `skills` directory: each sub-directory (or link to one) with a SKILL.md, by name. */
export function skillsIn(dir: string, source: SkillSource, plugin: string | null = null): Skill[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: Skill[] = [];
  for (const n of names) {
    const sub = path.join(dir, n);
    try {
      if (!statSync(sub).isDirectory()) continue;
    } catch {
      continue;
    }
    const s = readSkill(sub, n, source, plugin);
    if (s) out.push(s);
  }
  return out;
}

function realOrSame(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * Every skill claude would see from `cwd`, in claude's order (managed, personal, project nearest
 * first, plugins); one file found twice (a link) counts once. A later skill with the name of an
 * earlier one is kept, marked `shadowedBy`.
 */
export function discoverSkills(o: SkillLookup): Skill[] {
  const dirs: [string, SkillSource][] = [];
  if (!o.env.CLAUDE_CODE_DISABLE_POLICY_SKILLS) dirs.push([managedSkillsDir(), 'managed']);
  dirs.push([path.join(claudeConfigDir(o.env), 'skills'), 'personal']);
  for (const d of projectSkillDirs(o.cwd, o.env)) dirs.push([d, 'project']);
  const all = dirs.flatMap(([d, src]) => skillsIn(d, src));
  // A plugin manifest's `skills` entry may be one skill's directory as well as a directory of them.
  const pluginDir = (d: string, plugin: string): Skill[] => {
    const one = existsSync(path.join(d, 'SKILL.md')) ? readSkill(d, path.basename(d), 'plugin', plugin) : null;
    return one ? [one] : skillsIn(d, 'plugin', plugin);
  };
  for (const p of pluginRoots(o)) all.push(...p.dirs.flatMap((d) => pluginDir(d, p.name)));
  const seenFiles = new Set<string>();
  const byName = new Map<string, Skill>();
  const out: Skill[] = [];
  for (const s of all) {
    const real = realOrSame(s.file);
    if (seenFiles.has(real)) continue;
    seenFiles.add(real);
    const first = byName.get(s.name);
    if (first) s.shadowedBy = `${first.source} ${first.file}`;
    else byName.set(s.name, s);
    out.push(s);
  }
  return out;
}

const where = (s: Skill): string => `${s.name} (${s.plugin ? `plugin ${s.plugin}` : s.source}: ${s.file})`;

/**
 * The skill `name` names, as claude would run it for `/<name>`: E_UNKNOWN_SKILL (with the names
 * known) when none, E_AMBIGUOUS_SKILL naming the candidates when only plugins have it and more than one.
 */
export function resolveSkill(name: string, o: SkillLookup): { skill: Skill; shadowed: Skill[] } {
  const found = discoverSkills(o);
  const skills = found.filter((s) => !s.shadowedBy);
  const exact = skills.find((s) => s.name === name) ?? skills.find((s) => s.alias === name);
  if (exact) return { skill: exact, shadowed: found.filter((s) => s.shadowedBy && s.name === exact.name) };
  // A bare name: the plugin skills of that name.
  const inPlugins = name.includes(':')
    ? []
    : skills.filter((s) => s.plugin && (s.name === `${s.plugin}:${name}` || s.alias === `${s.plugin}:${name}`));
  if (inPlugins.length === 1) return { skill: inPlugins[0]!, shadowed: [] };
  if (inPlugins.length > 1) {
    throw new KlaudeError(
      'E_AMBIGUOUS_SKILL',
      `more than one plugin has a skill '${name}': ${inPlugins.map(where).join(', ')}`,
      { hint: `name one: --skill ${inPlugins[0]!.name}`, details: { candidates: inPlugins.map((s) => s.name) } },
    );
  }
  const known = skills.map((s) => s.name);
  throw new KlaudeError('E_UNKNOWN_SKILL', `no skill '${name}' here`, {
    hint: known.length
      ? `known: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', …' : ''} (klaude agents --skills lists them)`
      : 'skills live in .claude/skills/<name>/SKILL.md (project) or ~/.claude/skills/<name>/SKILL.md',
  });
}
