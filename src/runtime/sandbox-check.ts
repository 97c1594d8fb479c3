/**
 * The agent CLI's own sandbox, tried around a no-op before a runtime's first launch
 * (RuntimeAdapter.sandboxCheck). A sandbox that cannot start here would fail every tool call of the
 * agent while the CLI tells only its model (codex under a bubblewrap without user namespaces, or
 * without its helper); the run fails at once instead, with the CLI's own error on its row and in
 * its log.
 */
import { spawn } from 'node:child_process';
import type { SandboxCheck } from '../adapters/runtime-adapter.js';
import type { Logger } from '../lib/logger.js';

/** A check that takes longer is a sandbox the agent's commands would hang in. */
export const SANDBOX_CHECK_TIMEOUT_MS = 15_000;
const STDERR_KEEP = 8 * 1024;

/**
 * Run the check in the CLI's directory and environment. Resolves null when the sandbox works (or
 * the check could not be spawned, or failed for another reason: the launch itself then says why),
 * else the run's error.
 */
export function runSandboxCheck(
  check: SandboxCheck,
  o: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<string | null> {
  const env: NodeJS.ProcessEnv = { ...o.env, PWD: o.cwd };
  for (const [k, v] of Object.entries(check.cmd.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const limit = o.timeoutMs ?? SANDBOX_CHECK_TIMEOUT_MS;
  return new Promise((resolve) => {
    const child = spawn(check.cmd.file, check.cmd.args, { cwd: o.cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-STDERR_KEEP)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, limit);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (timedOut) {
        resolve(
          `the agent's sandbox did not start: \`${check.describe}\` had not finished after ${+(limit / 1000).toFixed(1)} s — hint: run it in the agent's directory to see where it hangs`,
        );
        return;
      }
      if (code === 0) {
        resolve(null);
        return;
      }
      const why = check.explain(stderr);
      resolve(why ? `${why.message} — hint: ${why.hint}` : null);
    });
  });
}

/** The launch's check, if it has one, run in the agent's directory; its error logged and returned. */
export async function checkLaunch(
  launch: { check: SandboxCheck | null; env: NodeJS.ProcessEnv },
  o: { cwd: string; log: Logger },
): Promise<string | null> {
  if (!launch.check) return null;
  const blocked = await runSandboxCheck(launch.check, { cwd: o.cwd, env: launch.env });
  if (blocked) o.log.error('the agent CLI sandbox cannot start', { error: blocked });
  return blocked;
}
