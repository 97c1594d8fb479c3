// An agent definition's outputDir is judged by the real path (agent-types/output-dir.ts): a
// symlink under .claude/ that points out of it is refused, whatever the text of outputDir says.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveOutputDir, saveAgentOutput } from '../../src/agent-types/output-dir.js';
import { isKlaudeError } from '../../src/lib/errors.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tree(): { project: string; outside: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'klaude-outdir-')));
  dirs.push(root);
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  mkdirSync(join(project, '.claude'), { recursive: true });
  mkdirSync(outside);
  return { project, outside };
}

function refusal(f: () => unknown): { code: string; message: string; hint?: string } {
  try {
    f();
  } catch (e) {
    if (isKlaudeError(e)) return { code: e.code, message: e.message, hint: e.hint };
    throw e;
  }
  throw new Error('not refused');
}

describe('outputDir', () => {
  it('resolves inside .claude/, directories made as needed', () => {
    const { project } = tree();
    expect(resolveOutputDir(project, 'plans/deep')).toBe(join(project, '.claude', 'plans', 'deep'));
    const file = saveAgentOutput(project, 'plans/deep', 'a.md', 'hello\n');
    expect(file).toBe(join(project, '.claude', 'plans', 'deep', 'a.md'));
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
    // A link that stays inside .claude/ is fine.
    symlinkSync(join(project, '.claude', 'plans'), join(project, '.claude', 'alias'));
    expect(resolveOutputDir(project, 'alias/x')).toBe(join(project, '.claude', 'plans', 'x'));
  });

  it('refuses a symlink that points out of .claude/, at any depth, and writes nothing there', () => {
    const { project, outside } = tree();
    symlinkSync(outside, join(project, '.claude', 'reviews'));
    for (const dir of ['reviews', 'reviews/sub']) {
      const r = refusal(() => saveAgentOutput(project, dir, 'a.md', 'x'));
      expect(r.code).toBe('E_AGENT_DEFINITION');
      expect(r.message).toContain(`outputDir '${dir}'`);
      expect(r.message).toContain(outside);
      expect(r.hint).toMatch(/symlink/);
    }
    expect(readdirSync(outside)).toEqual([]);
    // .claude/ itself pointing out of the project
    const other = tree();
    rmSync(join(other.project, '.claude'), { recursive: true });
    symlinkSync(other.outside, join(other.project, '.claude'));
    expect(refusal(() => resolveOutputDir(other.project, 'plans')).message).toMatch(/outside the project/);
    // outputDir resolving to .claude/ itself
    symlinkSync('.', join(project, '.claude', 'here'));
    expect(refusal(() => resolveOutputDir(project, 'here')).code).toBe('E_AGENT_DEFINITION');
  });

  it('does not follow a link planted under the file name', () => {
    const { project, outside } = tree();
    mkdirSync(join(project, '.claude', 'plans'));
    symlinkSync(join(outside, 'target.md'), join(project, '.claude', 'plans', 'a.md'));
    expect(() => saveAgentOutput(project, 'plans', 'a.md', 'x')).toThrow(/EEXIST/);
    expect(existsSync(join(outside, 'target.md'))).toBe(false);
  });
});
