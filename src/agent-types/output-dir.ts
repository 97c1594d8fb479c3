/**
 * Where an agent definition's `outputDir` lands: `<project>/.claude/<outputDir>/`. The validator
 * (validate.ts) sees only the text (relative, no `..`); a symlink in the tree — committed with the
 * repository, or made by an agent during its run — would still send the write anywhere. So the
 * path is judged by what it really is: the deepest part that exists is resolved with realpath,
 * and it must be inside the project's real `.claude/`, which must itself be inside the project.
 */
import { closeSync, mkdirSync, openSync, realpathSync, writeSync } from 'node:fs';
import path from 'node:path';
import { KlaudeError } from '../lib/errors.js';

function inside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** realpath of the deepest existing ancestor of `p`, with the parts that do not exist yet appended. */
function realpathDeepest(p: string): string {
  const missing: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(realpathSync(cur), ...missing.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      const parent = path.dirname(cur);
      if (parent === cur) throw e;
      missing.push(path.basename(cur));
      cur = parent;
    }
  }
}

function refuse(outputDir: string, what: string, real: string, hint: string): never {
  throw new KlaudeError('E_AGENT_DEFINITION', `outputDir '${outputDir}': ${what} resolves to ${real}, ${hint}`, {
    hint: 'a symlink points out; remove it, or pick another outputDir in the agent definition',
    details: { outputDir, resolved: real },
  });
}

/**
 * The real directory `<root>/.claude/<outputDir>` stands for (it need not exist yet). Throws
 * E_AGENT_DEFINITION when a symlink takes it out of the project's real `.claude/`.
 */
export function resolveOutputDir(root: string, outputDir: string): string {
  const realRoot = realpathSync(root);
  const claudeDir = realpathDeepest(path.join(realRoot, '.claude'));
  if (!inside(claudeDir, realRoot) || claudeDir === realRoot)
    refuse(outputDir, `${path.join(root, '.claude')}`, claudeDir, 'outside the project: nothing is written there');
  const real = realpathDeepest(path.join(claudeDir, outputDir));
  if (!inside(real, claudeDir) || real === claudeDir)
    refuse(outputDir, 'the directory', real, "outside the project's .claude/: nothing is written there");
  return real;
}

/**
 * Write one output file into the agent's outputDir (made if missing) and return its path. The
 * directory is checked again after it is made (a link could have appeared in between), and the
 * file is created exclusively, so a link planted under its name is not followed.
 */
export function saveAgentOutput(root: string, outputDir: string, fileName: string, text: string): string {
  mkdirSync(resolveOutputDir(root, outputDir), { recursive: true });
  const file = path.join(resolveOutputDir(root, outputDir), fileName);
  const fd = openSync(file, 'wx', 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return file;
}
