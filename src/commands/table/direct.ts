/**
 * Commands run without the command table's flag parsing: the hidden ones, started by klaude itself
 * (or a shell's completion script) and never listed, and `klaude hook`. Each runs its module with
 * the words after its name. A table, like COMMANDS, so the build gives each a bundle of its own
 * (scripts/bundles.mjs reads which module each one imports).
 */
export const DIRECT_COMMANDS: Record<string, (rest: string[]) => Promise<number>> = {
  // Claude Code runs this after every tool call: no flag parsing, only the hook code.
  hook: async (rest) => (await import('../../hooks/run.js')).runHook(rest),
  // The detached agent runtime (src/agent-ops/launch.ts starts `klaude __runtime <id>`).
  __runtime: async (rest) => (await import('../../runtime/entry.js')).runtimeMain(rest),
  // Run by an agent runtime's death notice when that runtime dies mid-run (src/agent-ops/after-death.ts).
  __reap: async (rest) => {
    const { reapAfterDeath, parseDeadRuntime } = await import('../../agent-ops/after-death.js');
    return reapAfterDeath(rest[0] ?? '', process.env, parseDeadRuntime(rest.slice(1)));
  },
  // Tells one event of an interactive session (src/hooks/notify-spawn.ts starts `klaude __notify <json>`).
  __notify: async (rest) => (await import('../../agent-ops/notify-detached.js')).notifyMain(rest, process.env),
  // The user's PTY server, which hosts every talk session (src/pty/launch.ts starts `klaude __ptyd`).
  __ptyd: async () => (await import('../../ptyd/entry.js')).ptyServerMain(),
  // This home's web server (src/web/web-launch.ts starts `klaude __web`).
  __web: async (rest) => (await import('../../web/web-server-main.js')).webServerMain(rest),
  // A zone's link on this machine (src/zone-client/client.ts starts `klaude __zone-link <zone>`).
  '__zone-link': async (rest) => (await import('../../zones/link-main.js')).zoneLinkMain(rest),
  // A zone's end of the link, run over ssh by the link (src/zones/serve.ts).
  '__zone-serve': async (rest) => (await import('../../zones/serve.js')).zoneServeMain(rest),
  // What a shell's completion script asks on every Tab (src/commands/setup/complete.ts); must stay fast.
  __complete: async (rest) => (await import('../setup/complete.js')).completeMain(rest, process.env, process.cwd()),
};

/** The direct command named `word`; `hook` only when not asked for its help (COMMANDS has that). */
export function directCommand(word: string | undefined, rest: string[]): ((rest: string[]) => Promise<number>) | null {
  if (word === undefined || !Object.prototype.hasOwnProperty.call(DIRECT_COMMANDS, word)) return null;
  if (word === 'hook' && (rest.includes('--help') || rest.includes('-h'))) return null;
  return DIRECT_COMMANDS[word]!;
}
