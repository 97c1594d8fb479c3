import { loadAgentDefinitions } from '../agent-types/definitions.js';
import { formatProblem } from '../agent-types/types.js';
import { loadConfig } from '../config/config.js';
import { klaudeHome } from '../config/paths.js';
import { table } from '../lib/format.js';
import type { CommandContext } from './types.js';

const SOURCE_LABEL = { project: 'project', user: 'user', builtin: 'built-in' } as const;

function truncate(s: string, n: number): string {
  const line = s.split('\n')[0]!.trim();
  return [...line].length > n ? `${[...line].slice(0, n - 1).join('')}…` : line;
}

export async function run(ctx: CommandContext): Promise<number> {
  const { agents, problems } = loadAgentDefinitions({ cwd: ctx.cwd, env: ctx.env });
  const { config } = loadConfig(klaudeHome(ctx.env));
  const problemLines = problems.map((p) => `  ${formatProblem(p)}${p.severity === 'error' ? ' (file skipped)' : ''}`);
  if (problemLines.length) ctx.stderr.write(`problems in agent files:\n${problemLines.join('\n')}\n`);

  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify({ agents, problems }, null, 2)}\n`);
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
  return 0;
}
