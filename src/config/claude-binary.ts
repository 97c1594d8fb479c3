import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { KlaudeError } from '../lib/errors.js';
import type { Config } from './schema.js';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Find an executable on PATH the way a shell would. */
export function whichSync(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (name.includes('/')) return isExecutable(name) ? path.resolve(name) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

/** The Claude Code executable: `claude.binary` if set, else `claude` on PATH. */
export function resolveClaudeBinary(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const wanted = config['claude.binary'] ?? 'claude';
  const found = whichSync(wanted, env);
  if (!found) {
    throw new KlaudeError('E_CLAUDE_NOT_FOUND', `Claude Code executable '${wanted}' not found`, {
      hint: config['claude.binary']
        ? 'fix claude.binary in config.yaml'
        : 'install it (npm install -g @anthropic-ai/claude-code) or set claude.binary in config.yaml',
    });
  }
  return found;
}
