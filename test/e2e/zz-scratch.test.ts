import { it } from 'vitest';
import { useAgentHomes, runThen } from './agent-home.js';
const fx = useAgentHomes({ responder: runThen('after') });
it('scratch', async () => {
  const home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n' });
  const cmd = process.env.SCRATCH_CMD ?? 'klaude sessions';
  const r = await home.k(['start', 'general', `run: ${cmd}`], { timeoutMs: 120_000 });
  console.log('START', r.code, r.stdout, r.stderr);
  const id = /started (\w{8})/.exec(r.stdout)![1]!;
  const l = await home.k(['logs', '--raw', id]);
  console.log(
    l.stdout
      .split('\n')
      .filter((x) => /tool_result|error|done/.test(x))
      .join('\n'),
  );
  const s = await home.k(['sessions', '--json']);
  console.log(s.stdout.slice(0, 3000));
  const { readFileSync } = await import('node:fs');
  try {
    console.log(readFileSync(`${home.klaudeHome}/klaude.log`, 'utf8').slice(-3000));
  } catch {}
}, 200_000);
