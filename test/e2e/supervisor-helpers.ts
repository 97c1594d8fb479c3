// Shared helpers of the supervisor end-to-end tests (their homes come from agent-home.ts,
// `supervisor: true`): the built klaude, or an interactive shell to start it from, under the PTY
// driver; read-only looks at the DB; a stand-in responder that runs `run: <command>` prompts
// through Claude's Bash tool. (supervisorHome is for the integration files outside that fixture.)
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { vi } from 'vitest';
import { claudeOnPath } from '../support/claude-bin.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import type { MockAnthropic, Responder } from '../support/mock-anthropic.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { makeTempHome, type TempHome, type TempHomeOptions } from '../support/temp-home.js';
import type { AgentHome } from './agent-home.js';

/**
 * The empty input prompt between its two rules. Claude draws it while a turn runs too, so
 * alone it does not mean idle: see waitIdle.
 */
export const IDLE_PROMPT = /^❯\s*$/m;
/** Claude's footer while a turn runs, up to the end of its Stop hooks ("running stop hook"). */
const BUSY_FOOTER = /esc to interrupt/;
export const READY = '? for shortcuts';

/**
 * `run: <command>` → a Bash tool call running it; the tool's output comes back as
 * `Tool output: <output>`; anything else → `Reply to: <prompt>`.
 */
export const runResponder: Responder = (req) => {
  if (req.isToolResult) return { text: `Tool output: ${req.toolResults.map((t) => t.content).join(' ')}` };
  const m = /^run: (.+)$/s.exec(req.prompt);
  if (m) return { bash: { command: m[1]!.trim(), description: 'requested command' } };
  return undefined;
};

/** A temp home whose PATH starts with the real claude's directory (how klaude finds it). */
export function supervisorHome(mock: MockAnthropic, opts: TempHomeOptions = {}): TempHome {
  const home = makeTempHome({ baseUrl: mock.url, allowBash: true, ...opts });
  home.env.PATH = `${claudeOnPath(home.root)}:${home.env.PATH ?? ''}`;
  return home;
}

export function writeConfig(home: TempHome, yaml: string): void {
  writeFileSync(join(home.klaudeHome, 'config.yaml'), yaml);
}

export function startKlaude(home: TempHome, args: string[] = [], size = { cols: 110, rows: 34 }): PtySession {
  return spawnPty(process.execPath, [KLAUDE_CLI, ...args], { cwd: home.projectDir, env: home.env, ...size });
}

/**
 * The shell's prompt on the screen's last line, not just `^SHELL\$ $`: claude asks the terminal
 * for its attributes (DA1) and may be gone before the answer comes, which then lands in the
 * shell's line (`SHELL$ 1;2c`, or echoed before the prompt), as after a plain claude.
 */
export async function shellPrompt(t: PtySession, timeoutMs = 20_000): Promise<void> {
  // Nothing around the prompt but such an answer (`^[[?1;2cSHELL$ `): the line that started klaude
  // (`SHELL$ node …`) is not the prompt, and is the last line left when a claude clears its screen on the way out (2.1.332).
  await t.waitFor(
    (s) => /(?:^|\dc)SHELL\$(?: [^a-bd-zA-Z/]*)?$/.test(s.trimEnd().split('\n').at(-1) ?? ''),
    'the shell prompt',
    {
      timeoutMs,
    },
  );
}

/**
 * An interactive bash in a PTY of the home (prompt `SHELL$ `, owned by the home), to start klaude
 * from and see what the shell gets back after it.
 */
export async function startShell(home: AgentHome): Promise<PtySession> {
  const t = home.own(
    spawnPty('bash', ['--norc', '--noprofile', '-i'], {
      cwd: home.projectDir,
      env: { ...home.env, PS1: 'SHELL$ ', HISTFILE: '/dev/null' },
      cols: 110,
      rows: 34,
    }),
  );
  await shellPrompt(t);
  return t;
}

/** Run `fn` on a fresh read-only connection to the home's DB (never held across waits). */
export function readDb<T>(home: TempHome, fn: (db: Database.Database) => T): T {
  const file = join(home.klaudeHome, 'sessions.db');
  if (!existsSync(file)) throw new Error(`no DB yet at ${file}`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

export interface SessionRow {
  id: string;
  project_id: string;
  parent_id: string | null;
  instance_id: string | null;
  type: string;
  status: string;
  native_session_id: string | null;
  last_text: string | null;
  prompt: string | null;
  activity: string | null;
}
export interface LinkRow {
  klaude_session_id: string;
  claude_session_id: string;
  source: string;
  ended_at: number | null;
  end_reason: string | null;
}
export interface ProcessRow {
  id: number;
  klaude_session_id: string;
  instance_id: string | null;
  pid: number;
  kind: string;
  exited_at: number | null;
  exit_code: number | null;
  signal: string | null;
  is_current: number;
}
export interface InstanceRow {
  id: string;
  pid: number;
  status: string;
  socket_path: string;
  root_session_id: string | null;
  exit_code: number | null;
}

export const sessions = (home: TempHome): SessionRow[] =>
  readDb(home, (db) => db.prepare('SELECT * FROM sessions ORDER BY created_at, id').all() as SessionRow[]);
export const links = (home: TempHome): LinkRow[] =>
  readDb(home, (db) => db.prepare('SELECT * FROM claude_session_links ORDER BY id').all() as LinkRow[]);
export const processes = (home: TempHome): ProcessRow[] =>
  readDb(
    home,
    (db) => db.prepare("SELECT * FROM runtime_process WHERE kind = 'claude' ORDER BY id").all() as ProcessRow[],
  );
export const instances = (home: TempHome): InstanceRow[] =>
  readDb(home, (db) => db.prepare('SELECT * FROM instances ORDER BY started_at, id').all() as InstanceRow[]);
export const eventKinds = (home: TempHome, sessionId: string): string[] =>
  readDb(home, (db) =>
    (
      db.prepare('SELECT kind FROM events WHERE klaude_session_id = ? ORDER BY id').all(sessionId) as { kind: string }[]
    ).map((e) => e.kind),
  );

/** Wait until `fn` returns a truthy value (re-reading the DB); returns that value. */
export async function waitForDb<T>(
  what: string,
  fn: () => T | undefined | null | false,
  timeoutMs = 30_000,
): Promise<T> {
  let last: unknown;
  return vi.waitFor(
    () => {
      let v: T | undefined | null | false;
      try {
        v = fn();
      } catch (e) {
        last = e;
        v = undefined;
      }
      if (!v) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
      return v;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}

/**
 * Wait until claude's input is empty and no turn is running. A prompt typed during a turn's
 * end (our Stop hook has already marked the row idle) is queued by claude, and under load
 * claude was seen to run the queued prompt and also leave its text in the input box.
 */
export async function waitIdle(term: PtySession, timeoutMs = 45_000): Promise<void> {
  await term.waitFor((s) => IDLE_PROMPT.test(s) && !BUSY_FOOTER.test(s), 'claude idle (empty input, no turn running)', {
    timeoutMs,
  });
}

/**
 * Type a prompt into the idle TUI and submit it. A slash command waits for claude's command
 * menu to list it first, as a person would: Enter racing the menu can leave `/clear ` behind
 * in the input box after the command ran. The menu line is `/exit   Exit the CLI` in 2.1.197
 * and `❯ /exit   Exit the CLI` in 2.1.332, whose first Enter can leave the menu open with the
 * command selected (docs/claude-versions.md): then a second Enter runs it.
 */
export async function submit(term: PtySession, text: string): Promise<void> {
  await waitIdle(term);
  term.type(text);
  await term.waitForText(text.slice(0, 60));
  if (!/^\/\w+$/.test(text)) {
    term.press('enter');
    return;
  }
  // (A line claude's input prompt overlaps starts `❯\u00a0`.)
  const menu = new RegExp(`^[ \u00a0❯]*${text} {2,}\\S`, 'm');
  await term.waitForText(menu);
  term.press('enter');
  try {
    await term.waitForGone(menu, { timeoutMs: 3000 });
  } catch {
    if (menu.test(term.text())) term.press('enter');
  }
}

/**
 * Wait until every text shows on screen below `anchor` (so text still on screen from before a
 * relaunch doesn't count). The anchor is its first appearance: klaude clears the screen before
 * its `klaude: switched to …` line, and claude shows that line again as the SessionStart hook's
 * message (`SessionStart:resume says: …`) below the resumed conversation. Where that message is
 * the first appearance, claude drew the screen anew (2.1.332's alternate screen): anything on it counts.
 */
export async function waitBelow(term: PtySession, anchor: string, texts: string[], timeoutMs = 45_000): Promise<void> {
  await term.waitFor(
    (s) => {
      const at = s.indexOf(anchor);
      if (at < 0) return false;
      const fromClaude = /says: (klaude: )?$/.test(s.slice(Math.max(0, at - 20), at));
      const from = fromClaude ? 0 : at + anchor.length;
      return texts.every((t) => s.indexOf(t, from) >= 0);
    },
    `${JSON.stringify(texts)} below ${JSON.stringify(anchor)}`,
    { timeoutMs },
  );
}

/** Keep a copy of a real transcript for test/fixtures/transcripts (set KLAUDE_KEEP_TRANSCRIPTS=dir). */
export function keepTranscript(file: string, name: string): void {
  const dir = process.env.KLAUDE_KEEP_TRANSCRIPTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, `${dir}/${name}`);
}
