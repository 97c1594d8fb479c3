/**
 * Which adapter serves which runtime name. Adapters load on first use, so a command that runs
 * claude never loads the other CLIs' code: adding a CLI means one new adapter folder plus one line
 * in ADAPTERS below.
 */
import type { RuntimeName } from '../config/schema.js';
import { KlaudeError } from '../lib/errors.js';
import type { RuntimeAdapter } from './runtime-adapter.js';

type Loader = () => Promise<RuntimeAdapter>;

const ADAPTERS: Partial<Record<RuntimeName, Loader>> = {
  claude: async () => (await import('./claude/adapter.js')).claudeAdapter,
  codex: async () => (await import('./codex/adapter.js')).codexAdapter,
  gemini: async () => (await import('./gemini/adapter.js')).geminiAdapter,
  opencode: async () => (await import('./opencode/adapter.js')).opencodeAdapter,
  cursor: async () => (await import('./cursor/adapter.js')).cursorAdapter,
};

export function isRuntimeName(name: string): name is RuntimeName {
  return ['claude', 'codex', 'gemini', 'cursor', 'opencode'].includes(name);
}

/** The adapter for a runtime name; E_BAD_REQUEST for unknown names, E_RUNTIME_MISSING for not-yet-supported ones. */
export async function getAdapter(name: string): Promise<RuntimeAdapter> {
  if (!isRuntimeName(name)) {
    throw new KlaudeError('E_BAD_REQUEST', `unknown runtime '${name}'`, {
      hint: 'runtimes: claude, codex, gemini, cursor, opencode',
    });
  }
  const load = ADAPTERS[name];
  if (!load) {
    throw new KlaudeError('E_RUNTIME_MISSING', `runtime '${name}' is not supported by this klaude yet`, {
      hint: `supported now: ${Object.keys(ADAPTERS).join(', ')}`,
    });
  }
  return load();
}
