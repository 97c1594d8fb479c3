// The one set-up of the real-claude end-to-end files (scripts/lint.mjs holds them to it), registered
// with vitest's hooks by one call: the Messages-API stand-in (one for the file, or none),
// throw-away homes whose config.yaml points klaude at the real claude, a `k()` that runs the built
// klaude in a home, the home's agent services when a test drives them in-process, its terminals, its
// `klaude web`, and the clean-up (terminals hung up, the web server stopped, every runtime the home's
// services or DB still record as live killed with its process group, the home removed).
// Call it before the file's own hooks: vitest runs after-hooks last-registered first, so a file's
// own terminals and hosts are closed before their homes go.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { CLAUDE_BIN, claudeOnPath } from '../support/claude-bin.js';
import { KLAUDE_CLI, runKlaude, type RunKlaudeOptions, type RunKlaudeResult } from '../support/klaude-bin.js';
import {
  startMockAnthropic,
  type MockAnthropic,
  type MockAnthropicOptions,
  type Responder,
} from '../support/mock-anthropic.js';
import type { PtySession } from '../support/pty-driver.js';
import { killLeftRuntimes, killRuntimeGroups } from '../support/runtime-cleanup.js';
import { spawnKlaude, type LiveKlaude } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome, type TempHomeOptions } from '../support/temp-home.js';
import { startWeb, type WebServer } from '../support/web-client.js';

export interface AgentConfig {
  /** `claude.binary` in config.yaml (default the real claude); `null` writes none: klaude looks on PATH. */
  binary?: string | null;
  /** `notify.desktop` (default false: no test tells the desktop unless it is about that). */
  desktop?: boolean;
  /** `notify.url`, when given. */
  notifyUrl?: string;
  /** YAML appended to config.yaml (other sections, e.g. `agents:\n  allowedTools: [Bash]\n`); `false`: no config.yaml at all. */
  config?: string | false;
}

export interface AgentHomeOptions extends TempHomeOptions, AgentConfig {
  /** A supervisor home: the real claude's directory first on PATH (how klaude finds it), Bash allowed unless `allowBash: false`. */
  supervisor?: boolean;
  /** k()'s time limit (default run-process's). */
  timeoutMs?: number;
}

export interface AgentHome extends TempHome {
  /** The built klaude in this home: its env (plus `opts.env`), its project as cwd. */
  k(args: string[], opts?: RunKlaudeOptions): Promise<RunKlaudeResult>;
  /** Write config.yaml again: the home's options with these over them (a binary made in the home, a setting a test changes). */
  configure(more: AgentConfig): void;
  /**
   * The agent services of this home (src/agent-ops/context.ts: its config, DB and project), opened
   * on first use with the built klaude as the runtimes' entry; before the home goes, every runtime
   * and CLI they record as live is killed and the DB closed.
   */
  services(): AgentServices;
  /** A terminal of this home: hung up (SIGHUP, as a closed window does) and disposed before the home goes. */
  own<T extends PtySession>(term: T): T;
  /** The built klaude left running in this home (`watch`, an attached `start`): killed before the home goes. */
  spawn(args: string[]): LiveKlaude;
  /** `klaude web` started in this home (a free port): stopped by `klaude web --stop` before the home goes (as is one started otherwise). */
  web(): Promise<WebServer>;
}

export interface AgentHomesOptions extends MockAnthropicOptions {
  /**
   * The stand-in: one for the file (default, started in beforeAll), or none (`false`, for a file
   * that runs no claude: homes point at a closed loopback port, and `mock` throws).
   */
  standIn?: 'file' | false;
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
    // (after a paragraph klaude may put first: a fork's note of where it works)
    const m = /^(?:.*?\n\n)?run: (.+)$/s.exec(r.prompt);
    if (m) return { text: 'Running.', bash: { command: m[1]!, description: 'run' } };
    return { text: `Reply to: ${r.prompt}` };
  };

function configYaml(opts: AgentConfig): string {
  const binary = opts.binary === undefined ? CLAUDE_BIN : opts.binary;
  const claude = binary === null ? '' : `claude:\n  binary: ${binary}\n`;
  const url = opts.notifyUrl === undefined ? '' : `  url: ${opts.notifyUrl}\n`;
  return `${claude}notify:\n  desktop: ${opts.desktop ?? false}\n${url}${opts.config || ''}`;
}

interface Owned {
  base: TempHome;
  terms: PtySession[];
  lives: LiveKlaude[];
  svc?: AgentServices;
  web?: boolean;
}

async function clean(h: Owned): Promise<void> {
  for (const t of h.terms.splice(0)) {
    // (An interactive shell ignores the SIGTERM dispose() starts with; a hang-up ends it.)
    if (!t.hasExited()) t.kill('SIGHUP');
    await t.dispose();
  }
  for (const l of h.lives.splice(0)) l.kill();
  // (A `klaude web` the test started another way, e.g. in a terminal, leaves its web/ folder too.)
  if (h.web || existsSync(join(h.base.klaudeHome, 'web')))
    await runKlaude(['web', '--stop'], { env: h.base.env, cwd: h.base.projectDir, timeoutMs: 30_000 });
  if (h.svc) {
    killRuntimeGroups(h.svc.db.sqlite);
    h.svc.db.close();
  }
  killLeftRuntimes(h.base.klaudeHome);
  h.base.cleanup();
}

function baseHome(opts: AgentHomeOptions, url: string | undefined): TempHome {
  // (makeTempHome takes the TempHomeOptions among opts and passes over the rest.)
  if (!opts.supervisor) return makeTempHome({ baseUrl: url, ...opts });
  const home = makeTempHome({ baseUrl: url, allowBash: true, ...opts });
  home.env.PATH = `${claudeOnPath(home.root)}:${home.env.PATH ?? ''}`;
  return home;
}

function agentHome(base: TempHome, owned: Owned, opts: AgentHomeOptions): AgentHome {
  let config: AgentConfig = opts;
  const configure = (more: AgentConfig) => {
    config = { ...config, ...more };
    if (config.config !== false) writeFileSync(join(base.klaudeHome, 'config.yaml'), configYaml(config));
  };
  configure({});
  return Object.assign(base, {
    k: (args: string[], run: RunKlaudeOptions = {}) =>
      runKlaude(args, { cwd: base.projectDir, timeoutMs: opts.timeoutMs, ...run, env: { ...base.env, ...run.env } }),
    configure,
    services: () =>
      (owned.svc ??= openAgentServices({
        env: base.env,
        cwd: base.projectDir,
        inv: { node: process.execPath, cli: KLAUDE_CLI },
      })),
    own: <T extends PtySession>(term: T): T => {
      owned.terms.push(term);
      return term;
    },
    spawn: (args: string[]) => {
      const live = spawnKlaude(args, { env: base.env, cwd: base.projectDir });
      owned.lives.push(live);
      return live;
    },
    web: () => {
      owned.web = true;
      return startWeb(base.env, base.projectDir);
    },
  });
}

/** Register the stand-in and the homes' clean-up with this file's hooks. */
export function useAgentHomes(fixtureOpts: AgentHomesOptions = {}): AgentHomes {
  const { standIn = 'file', ...mockOpts } = fixtureOpts;
  let mock: MockAnthropic | undefined;
  const fileHomes: Owned[] = [];
  let testHomes: Owned[] | undefined;

  if (standIn === 'file')
    beforeAll(async () => {
      mock = await startMockAnthropic(mockOpts);
    });
  beforeEach(() => {
    testHomes = [];
  });
  afterEach(async () => {
    for (const h of testHomes?.splice(0) ?? []) await clean(h);
    testHomes = undefined;
  });
  afterAll(async () => {
    for (const h of fileHomes.splice(0)) await clean(h);
    await mock?.close();
  });

  const started = (): MockAnthropic => {
    if (standIn === false) throw new Error('useAgentHomes({ standIn: false }) starts no stand-in');
    if (!mock) throw new Error('the stand-in starts in a before hook: use it in a hook or a test');
    return mock;
  };
  return {
    get mock() {
      return started();
    },
    home(opts = {}) {
      const base = baseHome(opts, standIn === false ? undefined : started().url);
      const owned: Owned = { base, terms: [], lives: [] };
      (testHomes ?? fileHomes).push(owned);
      return agentHome(base, owned, opts);
    },
  };
}
