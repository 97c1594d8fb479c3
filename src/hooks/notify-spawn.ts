/**
 * Hands a hook's notice (hook-notice.ts) to a detached `klaude __notify '<json>'`: the hook exits
 * at once, and the notifier process loads the config, tells the event once and ends by itself
 * within the notifiers' timeout (src/agent-ops/notify-detached.ts). Only on the rare transitions,
 * so the hook's usual path loads not even node:child_process.
 */
import path from 'node:path';
import type { NotifyEvent } from '../core/notify-event.js';

export const NOTIFY_COMMAND = '__notify';

/** This klaude's CLI entry: dist/cli.js beside dist/hook.cjs, or the CLI itself (`klaude hook`); null otherwise. */
export function cliEntry(script: string | undefined): string | null {
  if (!script) return null;
  const base = path.basename(script);
  if (base === 'hook.cjs') return path.join(path.dirname(script), 'cli.js');
  return base === 'cli.js' ? script : null;
}

export async function spawnNotifier(notice: NotifyEvent, env: NodeJS.ProcessEnv): Promise<boolean> {
  const cli = cliEntry(process.argv[1]);
  if (!cli) return false;
  const { spawn } = await import('node:child_process');
  // Detached (its own group, no stdio of claude's): it outlives this hook, never claude's wait.
  const child = spawn(process.execPath, [cli, NOTIFY_COMMAND, JSON.stringify(notice)], {
    detached: true,
    stdio: 'ignore',
    env,
  });
  child.on('error', () => undefined); // nothing to tell it to: the notification is lost, claude is not
  child.unref();
  return true;
}
