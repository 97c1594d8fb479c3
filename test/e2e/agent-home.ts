// The set-up most real-claude end-to-end files share, registered with vitest's hooks by one call:
// the Messages-API stand-in for the file, throw-away homes whose config.yaml points klaude at the
// real claude, a `k()` that runs the built klaude in a home, and the clean-up (every runtime the
// home's DB still records as live is killed with its process group, then the home is removed).
// Call it before the file's own hooks: vitest runs after-hooks last-registered first, so a file's
// own terminals and hosts are closed before their homes go.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { runKlaude, type RunKlaudeOptions, type RunKlaudeResult } from '../support/klaude-bin.js';
import {
  startMockAnthropic,
  type MockAnthropic,
  type MockAnthropicOptions,
  type Responder,
} from '../support/mock-anthropic.js';
import { killLeftRuntimes } from '../support/runtime-cleanup.js';
import { makeTempHome, type TempHome, type TempHomeOptions } from '../support/temp-home.js';
import { supervisorHome } from './supervisor-helpers.js';

export interface AgentHomeOptions extends TempHomeOptions {
  /** `claude.binary` in config.yaml (default the real claude); `null` writes none: klaude looks on PATH. */
  binary?: string | null;
  /** `notify.desktop` (default false: no test tells the desktop unless it is about that). */
  desktop?: boolean;
  /** `notify.url`, when given. */
  notifyUrl?: string;
  /** YAML appended to config.yaml (other sections, e.g. `agents:\n  allowedTools: [Bash]\n`); `false`: no config.yaml at all. */
  config?: string | false;
  /** A supervisor home (supervisor-helpers' supervisorHome): the real claude's directory first on PATH, Bash allowed unless `allowBash: false`. */
  supervisor?: boolean;
  /** k()'s time limit (default run-process's). */
  timeoutMs?: number;
}

export interface AgentHome extends TempHome {
  /** The built klaude in this home: its env (plus `opts.env`), its project as cwd. */
  k(args: string[], opts?: RunKlaudeOptions): Promise<RunKlaudeResult>;
}

export interface AgentHomes {
  /** The stand-in (started in beforeAll). */
  readonly mock: MockAnthropic;
  /** A fresh home. Made in a test, it is cleaned after that test; made in a before-all hook, after all. */
  home(opts?: AgentHomeOptions): AgentHome;
}

/**
 * `run: <command>` → "Running." and a Bash call running it, its result → `after`, anything else →
 * `Reply to: <prompt>`. (supervisor-helpers' runResponder repeats the tool's output instead.)
 */
export const runThen =
  (after: string): Responder =>
  (r) => {
    if (r.isToolResult) return { text: after };
    const m = /^run: (.+)$/s.exec(r.prompt);
    if (m) return { text: 'Running.', bash: { command: m[1]!, description: 'run' } };
    return { text: `Reply to: ${r.prompt}` };
  };

function configYaml(opts: AgentHomeOptions): string {
  const binary = opts.binary === undefined ? CLAUDE_BIN : opts.binary;
  const claude = binary === null ? '' : `claude:\n  binary: ${binary}\n`;
  const url = opts.notifyUrl === undefined ? '' : `  url: ${opts.notifyUrl}\n`;
  return `${claude}notify:\n  desktop: ${opts.desktop ?? false}\n${url}${opts.config || ''}`;
}

function clean(home: TempHome): void {
  killLeftRuntimes(home.klaudeHome);
  home.cleanup();
}

/** Register the stand-in and the homes' clean-up with this file's hooks. */
export function useAgentHomes(mockOpts: MockAnthropicOptions = {}): AgentHomes {
  let mock: MockAnthropic | undefined;
  const fileHomes: TempHome[] = [];
  let testHomes: TempHome[] | undefined;

  beforeAll(async () => {
    mock = await startMockAnthropic(mockOpts);
  });
  beforeEach(() => {
    testHomes = [];
  });
  afterEach(() => {
    for (const h of testHomes?.splice(0) ?? []) clean(h);
    testHomes = undefined;
  });
  afterAll(async () => {
    for (const h of fileHomes.splice(0)) clean(h);
    await mock?.close();
  });

  const started = (): MockAnthropic => {
    if (!mock) throw new Error('the stand-in starts in beforeAll: use it in a hook or a test');
    return mock;
  };
  return {
    get mock() {
      return started();
    },
    home(opts = {}) {
      // (makeTempHome takes the TempHomeOptions among opts and passes over the rest.)
      const base = opts.supervisor
        ? supervisorHome(started(), opts)
        : makeTempHome({ baseUrl: started().url, ...opts });
      (testHomes ?? fileHomes).push(base);
      if (opts.config !== false) writeFileSync(join(base.klaudeHome, 'config.yaml'), configYaml(opts));
      const k = (args: string[], run: RunKlaudeOptions = {}) =>
        runKlaude(args, { cwd: base.projectDir, timeoutMs: opts.timeoutMs, ...run, env: { ...base.env, ...run.env } });
      return Object.assign(base, { k });
    },
  };
}
