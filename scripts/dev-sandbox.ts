/**
 * A throwaway sandbox for trying klaude by hand against the Messages API stand-in:
 *   node --import tsx scripts/dev-sandbox.ts
 * prints the env to export; typing `run: <command>` in Claude makes the stand-in answer
 * with a Bash tool call running <command>.
 */
import { writeFileSync } from 'node:fs';
import { startMockAnthropic } from '../test/support/mock-anthropic.js';
import { makeTempHome } from '../test/support/temp-home.js';

const mock = await startMockAnthropic({
  responder: (req) => {
    if (req.isToolResult)
      return {
        text: `Tool output: ${req.toolResults
          .map((t) => t.content)
          .join(' ')
          .slice(0, 200)}`,
      };
    const m = /run: (.+)$/s.exec(req.prompt);
    if (m) return { bash: { command: m[1]!.trim(), description: 'requested command' } };
    return undefined;
  },
});
const home = makeTempHome({ baseUrl: mock.url, apiKey: 'sk-ant-dev-sandbox-key', allowBash: true });
const envFile = `${home.root}/env.sh`;
writeFileSync(
  envFile,
  Object.entries(home.env)
    .filter(([k]) => /^(HOME|KLAUDE_HOME|ANTHROPIC_|CLAUDE_CODE_|DISABLE_|TERM)/.test(k))
    .map(([k, v]) => `export ${k}='${v}'`)
    .join('\n') + `\ncd '${home.projectDir}'\n`,
);
console.log(`source ${envFile}`);
process.on('SIGTERM', () => {
  home.cleanup();
  process.exit(0);
});
