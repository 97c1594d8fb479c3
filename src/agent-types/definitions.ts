/**
 * Agent types: `<project>/.claude/agents/**\/*.md` over `~/.claude/agents/**\/*.md` over the
 * built-in `general`. What was read is kept (by path) and looked at again at most every
 * RECHECK_MS: a long-lived process (the dashboard, the web server) sees a file added, removed or
 * edited, a short one reads once. A bad file is reported as a problem and skipped, never hiding
 * the good ones.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { klaudeHome, projectRoot } from '../config/paths.js';
import { didYouMean } from '../lib/closest.js';
import { KlaudeError } from '../lib/errors.js';
import { parseCacheFile } from '../config/parse-cache.js';
import { projectAgentsDir, tildify, userAgentsDir } from '../claude/config-dir.js';
import { FrontmatterError, parseFrontmatter, type Frontmatter } from './frontmatter.js';
import {
  formatProblem,
  type AgentDefinition,
  type AgentDefinitions,
  type AgentLookupOptions,
  type AgentProblem,
  type AgentSource,
} from './types.js';
import { FieldError, toDefinition } from './validate.js';
import { resolveOutputDir } from './output-dir.js';

export const BUILTIN_AGENT_TYPE = 'general';

/** A plain Claude Code agent: no file, no extra instructions, the project's MCP servers. */
export function builtinGeneral(): AgentDefinition {
  return {
    name: BUILTIN_AGENT_TYPE,
    source: 'builtin',
    path: null,
    description: 'plain Claude Code agent (no extra instructions)',
    inheritProjectMcps: true,
    inheritParentMcps: false,
    instructions: '',
  };
}

const RANK: Record<AgentSource, number> = { builtin: 0, user: 1, project: 2 };

interface Cached {
  result: AgentDefinitions;
  /** Every file's path, mtime and size when it was read (stamp()). */
  stamp: string;
  checkedAt: number;
}

const cache = new Map<string, Cached>();

/** How long what was read is trusted before the files are stat'ed again. */
const RECHECK_MS = 2000;

/** Forget what was read (tests that rewrite agent files in place; long-lived processes on change). */
export function clearAgentDefinitionCache(): void {
  cache.clear();
}

interface DirResult {
  defs: AgentDefinition[];
  problems: AgentProblem[];
}

/** A directory's agent files as found: each `.md` file (at any depth) with its mtime and size. */
interface DirScan {
  files: { path: string; mtimeMs: number; size: number }[];
  problem?: string;
}

/**
 * The `.md` files under `dir` (symlinks followed, sorted by their path under it), each stat'ed
 * once: its stamp for a later look (see stamp()) and the files to read come from one walk. Not
 * readdirSync's `recursive`: node works out every entry's relative path with path.relative and
 * stats it, a third of `agents` with 150 files.
 */
function scanDir(dir: string): DirScan {
  const names: string[] = [];
  try {
    const seen = new Set<string>();
    const walk = (rel: string): void => {
      const abs = rel === '' ? dir : path.join(dir, rel);
      for (const d of readdirSync(abs, { withFileTypes: true })) {
        const name = rel === '' ? d.name : `${rel}${path.sep}${d.name}`;
        if (d.isDirectory() || (d.isSymbolicLink() && isNewDirectory(path.join(abs, d.name), dir, seen))) walk(name);
        else if (d.name.toLowerCase().endsWith('.md')) names.push(name);
      }
    };
    walk('');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { files: [] };
    return { files: [], problem: `cannot read the directory: ${(e as Error).message}` };
  }
  const files: DirScan['files'] = [];
  // path.join(dir, name) for each, without normalising each again (names from readdir are plain)
  const base = path.join(dir, path.sep);
  for (const name of names.sort()) {
    const file = base + name;
    const st = statSync(file, { throwIfNoEntry: false });
    if (st?.isFile()) files.push({ path: file, mtimeMs: st.mtimeMs, size: st.size });
  }
  return { files };
}

/** A symlink that leads to a directory not walked yet (a link back up would walk forever). */
function isNewDirectory(link: string, root: string, seen: Set<string>): boolean {
  try {
    if (!statSync(link).isDirectory()) return false;
    if (seen.size === 0) seen.add(realpathSync(root));
    const real = realpathSync(link);
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  } catch {
    return false;
  }
}

function loadDir(
  dir: string,
  { files, problem }: DirScan,
  source: Exclude<AgentSource, 'builtin'>,
  cacheFile: string,
): DirResult {
  const out: DirResult = { defs: [], problems: [] };
  if (problem) out.problems.push({ path: dir, message: problem, severity: 'error', source, name: '' });
  const byName = new Map<string, string>();
  for (const { path: file } of files) {
    let fm: Frontmatter | undefined;
    const stem = path.basename(file).replace(/\.md$/i, '');
    const fail = (message: string, line?: number): void => {
      const declared =
        fm && typeof fm.data.name === 'string' && fm.data.name.trim() !== '' ? fm.data.name.trim() : stem;
      out.problems.push({ path: file, line, message, severity: 'error', source, name: declared });
    };
    try {
      fm = parseFrontmatter(readFileSync(file, 'utf8'), cacheFile);
      const { def, warnings } = toDefinition(fm, file, source);
      const earlier = byName.get(def.name);
      if (earlier) {
        fail(
          `agent type '${def.name}' is already defined by ${earlier} (in the same directory)`,
          fm.keyLines.get('name'),
        );
        continue;
      }
      byName.set(def.name, file);
      out.defs.push(def);
      for (const w of warnings) {
        out.problems.push({
          path: file,
          line: fm.keyLines.get(w.field),
          message: w.message,
          severity: 'warning',
          source,
          name: def.name,
        });
      }
    } catch (e) {
      if (e instanceof FrontmatterError) fail(e.message, e.line);
      else if (e instanceof FieldError) fail(e.message, fm?.keyLines.get(e.field));
      else fail(`cannot read the file: ${(e as Error).message}`);
    }
  }
  return out;
}

/** All agent types visible from cwd, and the problems of files that could not be used. */
export function loadAgentDefinitions(opts: AgentLookupOptions = {}): AgentDefinitions {
  const env = opts.env ?? process.env;
  const projectDir = projectAgentsDir(projectRoot(opts.cwd ?? process.cwd()));
  const userDir = userAgentsDir(env);
  const key = `${projectDir}\0${userDir}`;
  const hit = cache.get(key);
  const now = Date.now();
  if (hit && now - hit.checkedAt < RECHECK_MS) return hit.result;
  const userScan = scanDir(userDir);
  const sameDir = path.resolve(projectDir) === path.resolve(userDir);
  const projectScan = sameDir ? { files: [] } : scanDir(projectDir);
  const stamped = stamp([userScan, projectScan]);
  if (hit && hit.stamp === stamped) {
    hit.checkedAt = now;
    return hit.result;
  }

  // Run in the home directory itself, the two directories are one: read it once, as the user's.
  const cacheFile = parseCacheFile(klaudeHome(env));
  const user = loadDir(userDir, userScan, 'user', cacheFile);
  const project = sameDir ? { defs: [], problems: [] } : loadDir(projectDir, projectScan, 'project', cacheFile);
  const byName = new Map<string, AgentDefinition>([[BUILTIN_AGENT_TYPE, builtinGeneral()]]);
  for (const d of [...user.defs, ...project.defs]) byName.set(d.name, d);
  const result: AgentDefinitions = {
    agents: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
    problems: [...project.problems, ...user.problems],
  };
  cache.set(key, { result, stamp: stamped, checkedAt: now });
  return result;
}

/**
 * What the directories hold, as far as a change goes: each file's path, mtime and size (as
 * stat'ed before it was read, so an edit while reading shows as a change at the next look).
 */
function stamp(scans: DirScan[]): string {
  const parts: string[] = [];
  for (const { files, problem } of scans) {
    if (problem) parts.push(problem);
    for (const f of files) parts.push(`${f.path}\0${f.mtimeMs}\0${f.size}`);
  }
  return parts.join('\n');
}

/**
 * The definition of one agent type. A broken file that would define the type (and is not
 * shadowed by a higher-precedence good one) is an E_AGENT_DEFINITION error, never silently
 * replaced by a lower-precedence file; an unknown type is E_USAGE listing what exists.
 */
export function resolveAgentType(type: string, opts: AgentLookupOptions = {}): AgentDefinition {
  const env = opts.env ?? process.env;
  const { agents, problems } = loadAgentDefinitions(opts);
  const found = agents.find((a) => a.name === type);
  const broken = problems.find(
    (p) => p.severity === 'error' && p.name === type && (!found || RANK[p.source] >= RANK[found.source]),
  );
  if (broken) {
    throw new KlaudeError('E_AGENT_DEFINITION', `bad agent file for type '${type}': ${formatProblem(broken)}`, {
      hint: 'fix the file; `klaude agents` lists agent types and file problems',
      details: { path: broken.path, line: broken.line, problem: broken.message },
    });
  }
  if (found) return found;
  const root = projectRoot(opts.cwd ?? process.cwd());
  const available = agents.map((a) => a.name);
  const files = [path.join(projectAgentsDir(root), `${type}.md`), path.join(userAgentsDir(env), `${type}.md`)];
  // The file named like the type exists, but its `name:` says another type: the type is that name.
  const misnamed = agents.find((a) => a.path !== null && files.includes(a.path));
  if (misnamed) {
    throw new KlaudeError('E_USAGE', `unknown agent type '${type}'`, {
      hint:
        `${tildify(misnamed.path!, env)} defines the type '${misnamed.name}' (its name: field): ` +
        `start it as \`klaude start ${misnamed.name} …\`, or change its name: to '${type}'`,
      details: { available, definedBy: misnamed.path, definesType: misnamed.name },
    });
  }
  throw new KlaudeError('E_USAGE', `unknown agent type '${type}'`, {
    hint:
      `${didYouMean(type, available)}available: ${available.join(', ')}; to add '${type}', write ${tildify(files[0]!, env)} (project) ` +
      `or ${tildify(files[1]!, env)} (user)`,
    details: { available },
  });
}

/** May an agent of type `parent` start one of type `child`? (No `allowedAgents` = any.) */
export function isAgentAllowed(parent: AgentDefinition, child: string): boolean {
  return (
    parent.allowedAgents === undefined || parent.allowedAgents.includes(child) || parent.allowedAgents.includes('*')
  );
}

/**
 * The real directory of an agent's saved output (`<root>/.claude/<outputDir>`), or null; throws
 * when a symlink takes it out of the project's `.claude/` (output-dir.ts).
 */
export function agentOutputDir(def: AgentDefinition, root: string): string | null {
  return def.outputDir ? resolveOutputDir(root, def.outputDir) : null;
}
