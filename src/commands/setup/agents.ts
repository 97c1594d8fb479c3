import { loadAgentDefinitions } from '../../agent-types/definitions.js';
import { mcpInventory, type McpInventory } from '../../agent-types/mcp.js';
import { approveHint } from '../../agent-types/mcp-approval.js';
import { formatProblem } from '../../agent-types/types.js';
import { discoverSkills } from '../../agent-types/skills.js';
import { tildify } from '../../claude/config-dir.js';
import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { table } from '../../lib/format.js';
import type { CommandContext } from '../cli/types.js';

const SOURCE_LABEL = { project: 'project', user: 'user', builtin: 'built-in' } as const;

function truncate(s: string, n: number): string {
  const line = s.split('\n')[0]!.trim();
  return [...line].length > n ? `${[...line].slice(0, n - 1).join('')}…` : line;
}

/** The project's `.mcp.json` servers agents do not get, and how to approve them. */
function leftOutLines(inv: McpInventory, env: NodeJS.ProcessEnv): string[] {
  if (inv.leftOut.length === 0) return [];
  const width = Math.max(...inv.leftOut.map((s) => s.name.length));
  const standIn = (name: string): string => {
    const s = inv.servers[name];
    return s ? ` (agents get the ${s.scope} server of that name)` : '';
  };
  return [
    '',
    `MCP servers of ${inv.leftOut[0]!.file} left out (agents do not get them):`,
    ...inv.leftOut.map((s) => `  ${s.name.padEnd(width)}  ${s.why}${standIn(s.name)}`),
    approveHint(
      inv.rule,
      inv.leftOut.map((s) => s.name),
      inv.leftOut.filter((s) => s.approval === 'rejected').map((s) => s.name),
      env,
    ),
  ];
}

/** `--skills`: the skills claude finds here, in its order, where each comes from; shadowed ones marked. */
function listSkills(ctx: CommandContext): number {
  const skills = discoverSkills({ cwd: ctx.cwd, env: ctx.env });
  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify({ skills }, null, 2)}\n`);
    return 0;
  }
  if (skills.length === 0) {
    ctx.stdout.write(
      'no skills here (.claude/skills/<name>/SKILL.md in the project, ~/.claude/skills/<name>/SKILL.md, or enabled plugins)\n',
    );
    return 0;
  }
  const rows = [['SKILL', 'SOURCE', 'DESCRIPTION', 'FILE']];
  for (const s of skills) {
    const src = s.plugin ? `plugin ${s.plugin}` : s.source;
    const desc = truncate(s.description ?? '', 60) || '-';
    const alias = s.alias ? ` (also /${s.alias})` : '';
    rows.push([
      `${s.name}${alias}`,
      src,
      s.shadowedBy ? `(not used: ${s.shadowedBy.split(' ')[0]} wins) ${desc}` : desc,
      tildify(s.file, ctx.env),
    ]);
  }
  ctx.stdout.write(table(rows));
  return 0;
}

export async function run(ctx: CommandContext): Promise<number> {
  if (ctx.flags.skills === true) return listSkills(ctx);
  const { agents, problems } = loadAgentDefinitions({ cwd: ctx.cwd, env: ctx.env });
  const { config } = loadConfig(klaudeHome(ctx.env));
  const inv = mcpInventory({ cwd: ctx.cwd, env: ctx.env }, true);
  const problemLines = problems.map((p) => `  ${formatProblem(p)}${p.severity === 'error' ? ' (file skipped)' : ''}`);
  if (problemLines.length) ctx.stderr.write(`problems in agent files:\n${problemLines.join('\n')}\n`);
  if (inv.problems.length) ctx.stderr.write(`problems in MCP config files:\n  ${inv.problems.join('\n  ')}\n`);

  if (ctx.flags.json) {
    const mcp = {
      servers: Object.values(inv.servers).map(({ name, scope, file }) => ({ name, scope, file })),
      leftOut: inv.leftOut,
      problems: inv.problems,
    };
    ctx.stdout.write(`${JSON.stringify({ agents, problems, mcp }, null, 2)}\n`);
    return 0;
  }
  const rows = [['TYPE', 'SOURCE', 'RUNTIME', 'MODEL', 'DESCRIPTION']];
  for (const a of agents) {
    rows.push([
      a.name,
      SOURCE_LABEL[a.source],
      a.runtime ?? config['agents.defaultRuntime'],
      a.model ?? config['agents.model'] ?? 'default',
      truncate(a.description ?? '', 70) || '-',
    ]);
  }
  ctx.stdout.write(table(rows));
  const left = leftOutLines(inv, ctx.env);
  if (left.length) ctx.stdout.write(`${left.join('\n')}\n`);
  return 0;
}
