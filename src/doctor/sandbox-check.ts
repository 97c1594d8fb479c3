/**
 * Whether agents' commands run sandboxed here (docs/sandbox.md): the mode (config
 * `agents.sandbox`), Claude Code's engine (bubblewrap and socat on Linux, Seatbelt on macOS), and on
 * Linux a throwaway bubblewrap that proves user namespaces work (a kernel or AppArmor that forbids
 * them makes every sandboxed command fail). The other CLIs are named: klaude drives no sandbox of
 * theirs yet, so their agents run unsandboxed.
 */
import { spawnSync } from 'node:child_process';
import type { Config } from '../config/schema.js';
import { claudeSandboxEngine, type EngineCheck } from '../sandbox/engine.js';
import { failed, passed, warned, type CheckResult } from './check.js';

const UNSANDBOXED_RUNTIMES =
  'codex, gemini, opencode and cursor agents run unsandboxed (klaude drives no sandbox of theirs yet)';

/** Null when a bubblewrap sandbox starts, else its complaint (one line). */
function bwrapStarts(env: NodeJS.ProcessEnv): string | null {
  const r = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-all', '--die-with-parent', 'true'], {
    env,
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (r.error) return r.error.message;
  if (r.status === 0) return null;
  return (r.stderr || `exit ${r.status}`).trim().split('\n')[0]!;
}

export function checkSandbox(
  config: Config | null,
  env: NodeJS.ProcessEnv,
  engine: EngineCheck = claudeSandboxEngine(env),
  starts: (env: NodeJS.ProcessEnv) => string | null = bwrapStarts,
): CheckResult {
  const mode = config?.['agents.sandbox'] ?? 'auto';
  if (mode === 'off')
    return warned('sandbox', 'agents.sandbox: off: agents run unsandboxed', 'set agents.sandbox: auto to sandbox them');
  if (engine.missing) {
    const detail = `${engine.missing}: agents run unsandboxed`;
    const fix = engine.fix ?? "Claude Code's sandbox runs on Linux and macOS";
    return mode === 'on'
      ? failed('sandbox', `agents.sandbox: on, but ${engine.missing}`, fix)
      : warned('sandbox', detail, fix);
  }
  if (engine.engine === 'bubblewrap') {
    const why = starts(env);
    if (why)
      return failed(
        'sandbox',
        `bubblewrap is installed but cannot start a sandbox: ${why}`,
        'allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 the AppArmor profile for bwrap, see docs/sandbox.md)',
      );
  }
  return passed('sandbox', `${engine.engine}: claude agents' commands run sandboxed; ${UNSANDBOXED_RUNTIMES}`);
}
