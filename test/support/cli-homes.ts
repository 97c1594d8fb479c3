// Config for the real codex / gemini / opencode CLIs inside a temp home, each pointed at its
// loopback stand-in (docs/cli-facts.md §4): nothing reads or writes the real home, nothing leaves
// the machine. The devDependency binaries (node_modules/.bin) go first on PATH, so klaude finds
// them the way it finds them on a person's machine.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './klaude-bin.js';
import type { MockAnthropic } from './mock-anthropic.js';
import { geminiHome, type MockGemini } from './mock-gemini.js';
import { codexHome, CODEX_TEST_KEY_ENV, type MockOpenAi } from './mock-openai.js';
import type { TempHome } from './temp-home.js';

export const NODE_BIN = join(REPO_ROOT, 'node_modules', '.bin');
export const OPENCODE_TEST_MODEL = 'anthropic/claude-sonnet-4-5';

export interface StandIns {
  openai?: MockOpenAi;
  gemini?: MockGemini;
  /** opencode's built-in anthropic provider talks to the Messages API stand-in. */
  anthropic?: MockAnthropic;
}

/** Write each CLI's config into `home` and set the env its children need (mutates home.env). */
export function prepareCliHomes(home: TempHome, s: StandIns): void {
  const env = home.env;
  env.PATH = `${NODE_BIN}:${env.PATH ?? ''}`;
  if (s.openai) {
    env.CODEX_HOME = codexHome(join(home.root, 'codex'), s.openai.url);
    env[CODEX_TEST_KEY_ENV] = 'sk-openai-test';
  }
  if (s.gemini) {
    geminiHome(home.home);
    env.GEMINI_API_KEY = 'gemini-test-key';
    env.GOOGLE_GEMINI_BASE_URL = s.gemini.url;
  }
  if (s.anthropic) {
    const xdg = join(home.root, 'xdg');
    env.XDG_CONFIG_HOME = join(xdg, 'config');
    env.XDG_DATA_HOME = join(xdg, 'data');
    env.XDG_STATE_HOME = join(xdg, 'state');
    env.XDG_CACHE_HOME = join(xdg, 'cache');
    mkdirSync(join(env.XDG_CONFIG_HOME, 'opencode'), { recursive: true });
    writeFileSync(
      join(env.XDG_CONFIG_HOME, 'opencode', 'opencode.json'),
      JSON.stringify(
        {
          $schema: 'https://opencode.ai/config.json',
          autoupdate: false,
          share: 'disabled',
          model: OPENCODE_TEST_MODEL,
          provider: { anthropic: { options: { baseURL: `${s.anthropic.url}/v1`, apiKey: env.ANTHROPIC_API_KEY } } },
        },
        null,
        2,
      ),
    );
    // No models.dev fetch (2 s lost to a connection error offline), no update check, and no
    // reading of Claude Code's own files from the (temp) home.
    env.OPENCODE_DISABLE_MODELS_FETCH = '1';
    env.OPENCODE_DISABLE_AUTOUPDATE = '1';
    env.OPENCODE_DISABLE_CLAUDE_CODE = '1';
  }
}

/** Replace temp paths and stand-in ports in captured output (stable fixtures that leak nothing). */
export function scrub(text: string, home: TempHome, ports: number[]): string {
  let out = text
    .split(home.projectDir)
    .join('/home/user/project')
    .split(home.home)
    .join('/home/user')
    .split(home.root)
    .join('/tmp/klaude-test');
  // opencode also prints paths relative to / ("tmp/klaude-test-XXXX/project/…").
  out = out.split(home.root.slice(1)).join('tmp/klaude-test');
  for (const p of ports) out = out.split(`127.0.0.1:${p}`).join('127.0.0.1:PORT');
  return out;
}
