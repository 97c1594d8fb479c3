/**
 * `klaude start --skill <name> ["<args>"]` (and `skill:` in an agent definition): the skill is
 * resolved where the agent starts, as claude resolves it (agent-types/skills.ts). A claude agent
 * runs it natively, its first message being `/<name> <args>` (claude puts the skill in the
 * conversation itself); every other CLI gets the skill expanded into its first prompt
 * (agent-types/skill-expand.ts). A claude agent in a worktree that does not have the project skill
 * (one not committed) gets the expansion too: claude would not find it there.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expandSkill } from '../agent-types/skill-expand.js';
import { resolveSkill, type Skill } from '../agent-types/skills.js';
import { tildify } from '../claude/config-dir.js';
import type { RuntimeName } from '../config/schema.js';

export interface SkillRun {
  skill: Skill;
  /** The prompt: the skill's arguments. */
  args: string;
}

/** The skill `name` resolved from `cwd`; a note when a skill of the same name elsewhere is passed over. */
export function planSkill(name: string, args: string, cwd: string, env: NodeJS.ProcessEnv, notes: string[]): SkillRun {
  const { skill, shadowed } = resolveSkill(name, { cwd, env });
  for (const s of shadowed)
    notes.push(
      `skill ${skill.name}: the ${skill.source} one (${tildify(skill.file, env)}) is used over the ${s.source} one (${tildify(s.file, env)}), as claude does`,
    );
  return { skill, args: args.trim() };
}

/** The row's title: what was asked, as claude would show it. */
export const skillTitle = (r: SkillRun): string => `/${r.skill.name}${r.args ? ` ${r.args}` : ''}`;

/** Whether claude, run in `agentCwd` (a worktree of `top` when `worktreeTop` is set), finds the same skill. */
function claudeFinds(r: SkillRun, top: string | null, worktreeTop: string | null): boolean {
  if (r.skill.source !== 'project' || !top || !worktreeTop) return true;
  const rel = path.relative(top, r.skill.file);
  return !rel.startsWith('..') && existsSync(path.join(worktreeTop, rel));
}

/** The agent's first prompt. */
export function skillPrompt(
  r: SkillRun,
  runtime: RuntimeName,
  where: { top: string | null; worktreeTop: string | null },
): string {
  if (runtime === 'claude' && claudeFinds(r, where.top, where.worktreeTop)) return skillTitle(r);
  return expandSkill(r.skill, r.args);
}
