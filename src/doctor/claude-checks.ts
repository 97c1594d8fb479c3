/**
 * The programs klaude stands on: the config that names them, Node, and the `claude` klaude would
 * launch (found as every launch finds it, config/claude-binary.ts) with its version.
 */
import { cliVersion } from '../adapters/cli-binary.js';
import { whichSync } from '../config/claude-binary.js';
import { loadConfig } from '../config/config.js';
import { NATIVE_MODULES, rebuildCommand } from '../config/install.js';
import type { Config } from '../config/schema.js';
import { isTestedClaudeVersion, TESTED_CLAUDE_VERSIONS } from '../core/tested-claude.js';
import { isKlaudeError } from '../lib/errors.js';
import { failed, passed, warned, type CheckResult } from './check.js';

export const MIN_NODE_MAJOR = 20;
const CLAUDE_PACKAGES = ['@anthropic-ai/claude-code'];
const INSTALL = 'npm install -g @anthropic-ai/claude-code';

export function checkNode(version: string = process.versions.node): CheckResult {
  const major = Number(version.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return passed('node', `Node ${version} (klaude needs ≥ ${MIN_NODE_MAJOR})`);
  return failed(
    'node',
    `Node ${version} is older than ${MIN_NODE_MAJOR}`,
    `install Node ${MIN_NODE_MAJOR} or newer, then build klaude's native modules for it: ${rebuildCommand(NATIVE_MODULES)}`,
  );
}

/** The config file, read as every command reads it; null config when it cannot be used. */
export function checkConfig(home: string): { result: CheckResult; config: Config | null } {
  try {
    const loaded = loadConfig(home);
    if (!loaded.exists) return { result: passed('config', `no ${loaded.path}: defaults`), config: loaded.config };
    if (loaded.warnings.length > 0) {
      const fix = 'fix the named keys (klaude config --keys lists them)';
      return { result: warned('config', `${loaded.path}: ${loaded.warnings.join('; ')}`, fix), config: loaded.config };
    }
    return { result: passed('config', `${loaded.path} is valid`), config: loaded.config };
  } catch (e) {
    const msg = isKlaudeError(e) ? e.message : String(e);
    return {
      result: failed('config', msg, 'fix config.yaml (klaude config --keys documents every key)'),
      config: null,
    };
  }
}

export interface ClaudeFound {
  result: CheckResult;
  /** The executable klaude would launch, when it exists and runs. */
  binary: string | null;
}

/** Which `claude` klaude would launch, whether it runs, and whether klaude was tested with it. */
export function checkClaude(config: Config | null, env: NodeJS.ProcessEnv): ClaudeFound {
  const configured = config?.['claude.binary'] ?? null;
  const wanted = configured ?? 'claude';
  const binary = whichSync(wanted, env);
  const from = configured ? 'claude.binary in config.yaml' : 'PATH';
  if (!binary) {
    const fix = configured ? `fix claude.binary in config.yaml, or install it: ${INSTALL}` : `install it: ${INSTALL}`;
    return { result: failed('claude', `'${wanted}' not found (from ${from})`, fix), binary: null };
  }
  const version = cliVersion(binary, { packages: CLAUDE_PACKAGES }, env);
  if (version === null) {
    const fix = `run \`${binary} --version\` to see why; reinstall it (${INSTALL})`;
    return { result: failed('claude', `${binary} (from ${from}) does not run`, fix), binary: null };
  }
  const where = `claude ${version} at ${binary} (from ${from})`;
  if (isTestedClaudeVersion(version))
    return { result: passed('claude', `${where}, a version klaude is tested with`), binary };
  const tested = TESTED_CLAUDE_VERSIONS.join(', ');
  return {
    result: warned(
      'claude',
      `${where}: klaude was tested with ${tested}, not this one`,
      `if something is off, try a tested one: npm install -g @anthropic-ai/claude-code@${TESTED_CLAUDE_VERSIONS.at(-1)}`,
    ),
    binary,
  };
}
