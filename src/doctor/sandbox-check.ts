/**
 * Whether agents' commands run sandboxed here (docs/sandbox.md): the mode (config
 * `agents.sandbox`), Claude Code's engine (bubblewrap and socat on Linux, Seatbelt on macOS), on
 * Linux a throwaway bubblewrap that proves user namespaces work (a kernel or AppArmor that forbids
 * them makes every sandboxed command fail, claude's and codex's alike), and for each agent CLI
 * installed here whether its agents run sandboxed — and if not, why (the adapter's own words).
 */
import { spawnSync } from 'node:child_process';
import { defaultConfig, type Config, type RuntimeName } from '../config/schema.js';
import { claudeSandboxEngine, type EngineCheck } from '../sandbox/engine.js';
import { failed, passed, warned, type CheckResult } from './check.js';
import type { RuntimeAdapter } from '../adapters/runtime-adapter.js';
import { claudeAdapter } from '../adapters/claude/adapter.js';
import { codexAdapter } from '../adapters/codex/adapter.js';
import { geminiAdapter } from '../adapters/gemini/adapter.js';
import { opencodeAdapter } from '../adapters/opencode/adapter.js';
import { cursorAdapter } from '../adapters/cursor/adapter.js';
import { unsandboxedWhy } from '../agent-ops/sandbox-plan.js';

/** An installed agent CLI: whether klaude sandboxes its agents here, else why not. */
export interface RuntimeSandbox {
  runtime: RuntimeName;
  /** Null: its agents run sandboxed. */
  why: string | null;
}

const ADAPTERS: readonly RuntimeAdapter[] = [
  claudeAdapter,
  codexAdapter,
  geminiAdapter,
  opencodeAdapter,
  cursorAdapter,
];

/** The agent CLIs installed here (their binary resolves) and their sandbox. */
export function installedRuntimes(config: Config | null, env: NodeJS.ProcessEnv): RuntimeSandbox[] {
  const out: RuntimeSandbox[] = [];
  for (const a of ADAPTERS) {
    try {
      a.resolveBinary(config ?? defaultConfig(), env);
    } catch {
      continue; // not installed: nothing to say about its agents
    }
    out.push({ runtime: a.name, why: a.sandbox ? a.sandbox.check(env).missing : unsandboxedWhy(a, a.name) });
  }
  return out;
}

/** `claude and codex agents' commands run sandboxed; opencode agents run unsandboxed (opencode has no sandbox)`. */
function perRuntime(runtimes: RuntimeSandbox[]): string {
  const inside = runtimes.filter((r) => r.why === null).map((r) => r.runtime);
  const parts: string[] = [];
  if (inside.length) parts.push(`${inside.join(' and ')} agents' commands run sandboxed`);
  for (const r of runtimes) if (r.why !== null) parts.push(`${r.runtime} agents run unsandboxed (${r.why})`);
  return parts.join('; ');
}

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
  runtimes: RuntimeSandbox[] = installedRuntimes(config, env),
): CheckResult {
  const mode = config?.['agents.sandbox'] ?? 'auto';
  if (mode === 'off')
    return warned('sandbox', 'agents.sandbox: off: agents run unsandboxed', 'set agents.sandbox: auto to sandbox them');
  // Claude's engine decides claude's agents; the other CLIs' come from their adapters.
  const others = runtimes.filter((r) => r.runtime !== 'claude');
  const hasClaude = runtimes.some((r) => r.runtime === 'claude');
  if (engine.missing) {
    const tail = others.length ? `; ${perRuntime(others)}` : '';
    const detail = `${engine.missing}: ${hasClaude ? 'claude ' : ''}agents run unsandboxed${tail}`;
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
  const said = runtimes.length ? perRuntime(runtimes) : "agents' commands run sandboxed";
  return passed('sandbox', `${engine.engine}: ${said}`);
}
