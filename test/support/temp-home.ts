// A throw-away HOME + KLAUDE_HOME + project dir for tests, and the env to run children in it.
// Nothing here (or in any test) may touch the real home directory.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAUDE_VERSION } from './claude-package.js';
import { killProcessesOfHome } from './runtime-cleanup.js';

export const TEST_API_KEY = 'sk-ant-api03-klaude-test-key-0000000000000000-AAAA';

export interface TempHomeOptions {
  /**
   * Base URL of the model-API stand-in (ANTHROPIC_BASE_URL); usually `mock.url`. Default: a closed
   * loopback port (`http://127.0.0.1:9`), so a child never reaches the real API.
   */
  baseUrl?: string;
  /** ANTHROPIC_API_KEY for children (default TEST_API_KEY); pre-approved in .claude.json. */
  apiKey?: string;
  /** Write `home/.claude/settings.json` allowing the Bash tool without asking (interactive TUI). */
  allowBash?: boolean;
  /**
   * The person's chosen permission mode, written as `permissions.defaultMode` in
   * `home/.claude/settings.json` (default `'default'`: ask, or run what an allow rule allows).
   * `null` writes none, so claude picks its own: "auto mode" since 2.1.332, whose safety check the
   * stand-in cannot give (docs/claude-versions.md).
   */
  permissionMode?: 'default' | 'acceptEdits' | 'auto' | 'plan' | 'bypassPermissions' | null;
  /** Extra content merged into `home/.claude/settings.json`. */
  settings?: Record<string, unknown>;
  /** Extra top-level keys merged into `home/.claude.json`. */
  claudeJson?: Record<string, unknown>;
  /** Extra env for children (applied last; `undefined` values delete). */
  env?: Record<string, string | undefined>;
  /** Prefix of the temp dir name. */
  prefix?: string;
}

export interface TempHome {
  /** The temp root holding everything below (realpath'd). */
  root: string;
  /** HOME for children (`<root>/home`). */
  home: string;
  /** KLAUDE_HOME for children (`<root>/klaude`). */
  klaudeHome: string;
  /** A trusted project dir (`<root>/project`), realpath'd, no git repo. */
  projectDir: string;
  /** Full env for child processes. */
  env: Record<string, string>;
  /** Path of the written `.claude.json`. */
  claudeJsonPath: string;
  /** Mark another absolute dir as trusted in `.claude.json` (e.g. a second project). */
  trustDir(dir: string): void;
  cleanup(): void;
}

/** Env vars dropped from the inherited environment (they would leak the outer session into tests). */
function isDropped(name: string): boolean {
  return (
    name.startsWith('KLAUDE_') ||
    name.startsWith('CLAUDE_CODE_') ||
    name === 'CLAUDECODE' ||
    name === 'CLAUDE_CONFIG_DIR' ||
    name.startsWith('ANTHROPIC_') ||
    name.startsWith('VITEST') ||
    name === 'NODE_OPTIONS' ||
    name === 'XDG_CONFIG_HOME' ||
    name === 'XDG_DATA_HOME' ||
    name === 'XDG_STATE_HOME' ||
    name === 'XDG_CACHE_HOME'
  );
}

export function makeTempHome(opts: TempHomeOptions = {}): TempHome {
  const root = realpathSync(mkdtempSync(join(tmpdir(), opts.prefix ?? 'klaude-test-')));
  const home = join(root, 'home');
  const klaudeHome = join(root, 'klaude');
  const projectDirRaw = join(root, 'project');
  for (const d of [home, klaudeHome, projectDirRaw, join(home, '.claude')]) mkdirSync(d, { recursive: true });
  const projectDir = realpathSync(projectDirRaw);
  const apiKey = opts.apiKey ?? TEST_API_KEY;

  // claude 2.1.197 compares `approved` entries with the key's last 20 characters (`mU(e){return e.slice(-20)}`).
  const claudeJsonPath = join(home, '.claude.json');
  const projects: Record<string, unknown> = {};
  const trusted = () => ({
    hasTrustDialogAccepted: true,
    hasCompletedProjectOnboarding: true,
    projectOnboardingSeenCount: 1,
    allowedTools: [],
  });
  projects[projectDir] = trusted();
  const claudeJson: Record<string, unknown> = {
    hasCompletedOnboarding: true,
    lastOnboardingVersion: CLAUDE_VERSION,
    theme: 'dark',
    numStartups: 1,
    lastReleaseNotesSeen: CLAUDE_VERSION,
    customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
    // Claude 2.1.332's notice "Auto mode is now Claude Code's default", seen; and, for a person who
    // chose a mode, its offer "Make auto mode your default permission mode?" answered "No, keep
    // manual mode" (what that answer writes), so it does not stand before the prompt.
    hasSeenAutoDefaultNotice: true,
    ...(opts.permissionMode !== null ? { hasSeenAutoDefaultNudge: true } : {}),
    projects,
    ...opts.claudeJson,
  };
  const writeClaudeJson = () => writeFileSync(claudeJsonPath, JSON.stringify(claudeJson, null, 2));
  writeClaudeJson();

  const settings: Record<string, unknown> = { ...opts.settings };
  const mode = opts.permissionMode === undefined ? 'default' : opts.permissionMode;
  if (mode !== null) {
    settings.permissions = { defaultMode: mode, ...(settings.permissions as Record<string, unknown> | undefined) };
  }
  if (opts.allowBash) {
    const perms = (settings.permissions as { allow?: string[] } | undefined) ?? {};
    settings.permissions = { ...perms, allow: [...(perms.allow ?? []), 'Bash'] };
  }
  if (Object.keys(settings).length > 0) {
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify(settings, null, 2));
  }

  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !isDropped(k)) env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    USERPROFILE: home,
    KLAUDE_HOME: klaudeHome,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    TERM: 'xterm-256color',
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
  });
  env.ANTHROPIC_BASE_URL = opts.baseUrl ?? 'http://127.0.0.1:9';
  delete env.COLUMNS;
  delete env.LINES;
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  return {
    root,
    home,
    klaudeHome,
    projectDir,
    env,
    claudeJsonPath,
    trustDir(dir: string) {
      projects[realpathSync(dir)] = trusted();
      writeClaudeJson();
    },
    cleanup() {
      // Nothing started in this home may go on writing in it while it is removed (ENOTEMPTY): a
      // runtime recorded in a DB the test deleted, a claude still ending and running its SessionEnd
      // hook. Node's retries remove what appeared meanwhile.
      killProcessesOfHome(klaudeHome);
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}
