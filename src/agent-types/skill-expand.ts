/**
 * A skill as prompt text, for the CLIs that do not run Claude Code skills (codex, gemini, opencode,
 * cursor): what claude itself puts in the conversation when `/<name> <args>` runs it — "Base
 * directory for this skill: …", then SKILL.md's body with the arguments put in (`$ARGUMENTS`,
 * `$ARGUMENTS[0]`, `$0`, named `arguments:`; none used: `ARGUMENTS: <args>` added at the end, as
 * claude does) — followed by the files of the skill that SKILL.md names (markdown links and
 * `backticked` paths inside the skill's directory), each up to FILE_MAX, all of it up to
 * EXPANSION_MAX. What does not fit, or is not text, is named with its path instead.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseFrontmatter } from './frontmatter.js';
import type { Skill } from './skills.js';

export const EXPANSION_MAX = 128 * 1024;
export const FILE_MAX = 32 * 1024;

/** Arguments split as claude splits them: on spaces, with "double" or 'single' quotes keeping spaces. */
export function splitArguments(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/** SKILL.md's body with the arguments put in, as claude does (`\$` keeps a dollar). */
export function withArguments(body: string, args: string, names: readonly string[] = []): string {
  const parts = splitArguments(args);
  const KEEP = '\uFFFF';
  let used = false;
  let text = body.replace(/\\\$/g, KEEP);
  const take = (i: number): string => ((used = true), parts[i] ?? '');
  [...names]
    .map((name, i) => ({ name, i }))
    .filter((n) => /^[A-Za-z_]\w*$/.test(n.name))
    .sort((a, b) => b.name.length - a.name.length)
    .forEach(({ name, i }) => (text = text.replace(new RegExp(`\\$${name}(?![\\[\\w])`, 'g'), () => take(i))));
  text = text.replace(/\$ARGUMENTS\[(\d+)\]/g, (_m, n: string) => take(Number(n)));
  text = text.replace(/\$(\d+)(?!\w)/g, (_m, n: string) => take(Number(n)));
  text = text.replace(/\$ARGUMENTS/g, () => ((used = true), args));
  if (!used && args.trim()) text += `\n\nARGUMENTS: ${args}`;
  return text.replace(new RegExp(KEEP, 'g'), '$');
}

/** Relative paths SKILL.md names: markdown link targets and `backticked` paths, in order. */
export function namedPaths(body: string): string[] {
  const out: string[] = [];
  const add = (p: string): void => {
    const clean = p.trim().replace(/^<|>$/g, '');
    if (!clean || /^[a-z]+:/i.test(clean) || clean.startsWith('#') || path.isAbsolute(clean)) return;
    if (!out.includes(clean)) out.push(clean);
  };
  for (const m of body.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) add(m[1]!.split('#')[0]!);
  for (const m of body.matchAll(/`([\w.@/-]+\/[\w.@/-]+|[\w@-]+\.[A-Za-z0-9]{1,8})`/g)) add(m[1]!);
  return out;
}

const isText = (b: Buffer): boolean => !b.subarray(0, 8192).includes(0);
/** What a file's `<skill-file path="…">` wrapping adds besides its path. */
const WRAP = 40;

interface Included {
  rel: string;
  text: string;
}

/** The named files that are in the skill's directory, as text, within the bounds; the rest with why not. */
function namedFiles(skill: Skill, body: string, room: number): { files: Included[]; left: string[] } {
  const base = realpathSync(skill.dir);
  const files: Included[] = [];
  const left: string[] = [];
  for (const rel of namedPaths(body)) {
    let real: string;
    try {
      real = realpathSync(path.resolve(skill.dir, rel));
    } catch {
      continue; // named but not there (a path of the project, an example)
    }
    if (!real.startsWith(base + path.sep) || real === realpathSync(skill.file)) continue;
    let size: number;
    try {
      const st = statSync(real);
      if (!st.isFile()) continue;
      size = st.size;
    } catch {
      continue;
    }
    const kib = `${Math.ceil(size / 1024)} KiB`;
    const takes = size + rel.length + WRAP; // with its <skill-file> lines
    if (size > FILE_MAX) left.push(`${rel} (${kib}: over the ${FILE_MAX / 1024} KiB a file may take)`);
    else if (takes > room) left.push(`${rel} (${kib}: over what is left of the ${EXPANSION_MAX / 1024} KiB)`);
    else {
      const buf = readFileSync(real);
      if (!isText(buf)) left.push(`${rel} (not text)`);
      else {
        files.push({ rel, text: buf.toString('utf8') });
        room -= takes;
      }
    }
  }
  return { files, left };
}

/** The text a non-claude agent gets for `--skill <name> "<args>"`. */
export function expandSkill(skill: Skill, args: string): string {
  const raw = readFileSync(skill.file, 'utf8');
  let body = raw;
  let names: string[] = [];
  try {
    const fm = parseFrontmatter(raw);
    body = fm.body;
    const a = fm.data.arguments;
    names = Array.isArray(a)
      ? a.filter((x): x is string => typeof x === 'string')
      : typeof a === 'string'
        ? a.split(/\s+/)
        : [];
  } catch {
    body = raw; // no frontmatter: the whole file is the skill
  }
  const filled = withArguments(body.replace(/\$\{CLAUDE_SKILL_DIR\}/g, skill.dir), args).slice(0, EXPANSION_MAX);
  const head = `<skill name="${skill.name}" source="${skill.source}" file="${skill.file}">\nBase directory for this skill: ${skill.dir}\n\n`;
  const out = [`${head}${filled.trimEnd()}\n</skill>`];
  const { files, left } = namedFiles(skill, body, EXPANSION_MAX - out[0]!.length);
  for (const f of files) out.push(`<skill-file path="${f.rel}">\n${f.text.trimEnd()}\n</skill-file>`);
  if (left.length)
    out.push(`Files of the skill not included here (read them from ${skill.dir} if you need them): ${left.join('; ')}`);
  return out.join('\n\n');
}
