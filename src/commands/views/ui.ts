import type { CommandContext } from '../cli/types.js';

/**
 * Load the dashboard's code, with two things hidden while it evaluates:
 * - env CI / CONTINUOUS_INTEGRATION: Ink decides once, when it loads, whether it runs "in CI" and
 *   then only prints a last frame at exit; a dashboard on a real terminal is interactive whatever
 *   the environment says.
 * - `globalThis.fetch`: yoga's WebAssembly loader (Ink's layout engine) probes `typeof fetch`,
 *   which makes Node load its fetch implementation (undici, tens of ms) that nothing here uses.
 *   The load is awaited here (dashboard/yoga-loaded.ts), so fetch stays hidden until it is done.
 */
async function loadInteractive<T>(load: () => Promise<T>, env: NodeJS.ProcessEnv, tty: boolean): Promise<T> {
  const keys = tty ? ['CI', 'CONTINUOUS_INTEGRATION'].filter((k) => k in env) : [];
  const saved = keys.map((k) => [k, env[k]] as const);
  for (const k of keys) delete env[k];
  const fetchDesc = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (fetchDesc?.configurable)
    Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return await load();
  } finally {
    for (const [k, v] of saved) env[k] = v;
    if (fetchDesc?.configurable) Object.defineProperty(globalThis, 'fetch', fetchDesc);
  }
}

export async function run(ctx: CommandContext): Promise<number> {
  const env = { ...ctx.env };
  const { runUiSupervisor } = await loadInteractive(
    async () => {
      const ui = await import('../../dashboard/ui-supervisor.js');
      await (
        await import('../../dashboard/yoga-loaded.js')
      ).yogaLoaded;
      return ui;
    },
    process.env,
    Boolean(process.stdout.isTTY),
  );
  return runUiSupervisor({
    cwd: ctx.cwd,
    env,
    claudeArgs: [...ctx.input, ...ctx.passthrough],
    allProjects: ctx.flags.all === true,
  });
}
