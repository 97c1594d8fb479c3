/**
 * Where a new agent's commands will run, decided once at its start and kept in its metadata
 * (core/sandbox-state.ts; docs/sandbox.md). The mode is `klaude start --sandbox/--no-sandbox`, else
 * its definition's `sandbox:`, else config `agents.sandbox`:
 * - `auto`: sandboxed when its CLI has a sandbox klaude drives (claude, codex) and the engine is
 *   installed; else unsandboxed (why: the adapter's `noSandbox`, or the missing engine, told once,
 *   plainly, with how to install one);
 * - `on`: sandboxed, or the start fails with the one-line fix;
 * - `off`: unsandboxed.
 * A sandboxed agent's sub-agents are sandboxed too, whatever asks otherwise; and no agent runs
 * bypassPermissions unsandboxed unless the person said so in so many words.
 */
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../config/paths.js';
import type { Config, SandboxMode } from '../config/schema.js';
import { sandboxOf, type SandboxState } from '../core/sandbox-state.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import type { RuntimeAdapter } from '../adapters/runtime-adapter.js';

export interface SandboxAsk {
  /** `--sandbox` (on) or `--no-sandbox` (off). */
  flag?: 'on' | 'off';
  /** The definition's `sandbox:`. */
  definition: SandboxMode | null;
  /** The permission mode the agent will ask its CLI for. */
  permissionMode: string | null;
  /** `--bypass-without-sandbox`. */
  bypassWithoutSandbox?: boolean;
}

interface PlanContext {
  home: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  runtime: string;
  adapter: RuntimeAdapter;
  parent: SessionRow | null;
}

function modeOf(ask: SandboxAsk, config: Config): { mode: SandboxMode; from: string } {
  if (ask.flag) return { mode: ask.flag, from: ask.flag === 'on' ? '--sandbox' : '--no-sandbox' };
  if (ask.definition) return { mode: ask.definition, from: `sandbox: ${ask.definition} in its definition` };
  return { mode: config['agents.sandbox'], from: `agents.sandbox: ${config['agents.sandbox']}` };
}

function decide(ctx: PlanContext, ask: SandboxAsk, notes: string[]): SandboxState {
  let { mode, from } = modeOf(ask, ctx.config);
  if (sandboxOf(ctx.parent?.metadata)?.state === 'sandboxed') {
    if (mode === 'off')
      throw new KlaudeError(
        'E_USAGE',
        `a sub-agent of a sandboxed agent runs sandboxed too (${from} asked otherwise)`,
        {
          hint: 'start it without --no-sandbox (or from your own shell, outside that agent)',
        },
      );
    [mode, from] = ['on', 'its parent is sandboxed'];
  }
  if (mode === 'off') return { state: 'unsandboxed', why: from };
  const support = ctx.adapter.sandbox;
  if (!support) {
    const why = unsandboxedWhy(ctx.adapter, ctx.runtime);
    if (mode === 'on')
      throw new KlaudeError('E_SANDBOX_UNAVAILABLE', `${ctx.runtime} agents cannot be sandboxed: ${why} (${from})`, {
        hint: 'start it with --no-sandbox, or run it with --runtime claude (or codex)',
      });
    return { state: 'unsandboxed', why };
  }
  const check = support.check(ctx.env);
  if (check.missing === null) return { state: 'sandboxed', engine: check.engine };
  if (mode === 'on')
    throw new KlaudeError('E_SANDBOX_UNAVAILABLE', `the sandbox is required (${from}) but ${check.missing}`, {
      hint: check.fix ? `${check.fix}; or set agents.sandbox: auto to let agents run unsandboxed` : '--no-sandbox',
    });
  if (claimOnce(ctx.home, 'unsandboxed'))
    notes.push(
      `agents run unsandboxed here: ${check.missing}${check.fix ? ` (${check.fix} sandboxes them)` : ''}. \`klaude doctor\` checks it; this note is shown once`,
    );
  return { state: 'unsandboxed', why: check.missing };
}

/** Why agents of a CLI without a sandbox klaude drives run unsandboxed (the adapter's own words). */
export function unsandboxedWhy(adapter: Pick<RuntimeAdapter, 'noSandbox'>, runtime: string): string {
  return adapter.noSandbox ?? `klaude drives no sandbox of ${runtime} yet`;
}

/** The sandbox state of a new agent; throws when it may not start (see above). */
export function planSandbox(ctx: PlanContext, ask: SandboxAsk, notes: string[]): SandboxState {
  const state = decide(ctx, ask, notes);
  const bypassOk = ask.bypassWithoutSandbox === true || ctx.config['agents.bypassWithoutSandbox'];
  if (state.state === 'unsandboxed' && ask.permissionMode === 'bypassPermissions' && !bypassOk) {
    throw new KlaudeError(
      'E_UNSANDBOXED_BYPASS',
      `bypassPermissions without a sandbox would run every command unasked with your whole account in reach (unsandboxed: ${state.why})`,
      {
        hint: 'sandbox it (`klaude doctor` says how), use acceptEdits, or pass --bypass-without-sandbox (config agents.bypassWithoutSandbox: true) if that is what you mean',
      },
    );
  }
  return state;
}

/** True the first time `name` is claimed in this home (a file made with O_EXCL). */
function claimOnce(home: string, name: string): boolean {
  try {
    const dir = ensurePrivateDir(path.join(home, 'notices'));
    closeSync(openSync(path.join(dir, name), 'wx', 0o600));
    return true;
  } catch {
    return false;
  }
}
