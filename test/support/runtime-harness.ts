// Shared by test/integration/runtime-{codex,gemini,opencode}.test.ts: the built klaude run in a
// temp home with the real CLI underneath, gates to hold stand-in replies back (so "live" is
// observable without timing assumptions), and readers for the DB and the session log.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KLAUDE_CLI, runKlaude } from './klaude-bin.js';
import type { TempHome } from './temp-home.js';
import { killLeftRuntimes } from './runtime-cleanup.js';

export class Gates {
  private readonly gates = new Map<string, { open: Promise<void>; release: () => void }>();

  private get(name: string): { open: Promise<void>; release: () => void } {
    let g = this.gates.get(name);
    if (!g) {
      let release!: () => void;
      const open = new Promise<void>((r) => (release = r));
      g = { open, release };
      this.gates.set(name, g);
    }
    return g;
  }

  wait(name: string): Promise<void> {
    return this.get(name).open;
  }

  release(name: string): void {
    this.get(name).release();
  }

  releaseAll(): void {
    for (const g of this.gates.values()) g.release();
  }
}

export interface SessionRecord {
  id: string;
  status: string;
  runtime: string;
  native_session_id: string | null;
  log_path: string | null;
}

export function harness(home: () => TempHome) {
  const klaude = (args: string[], timeoutMs = 90_000) =>
    runKlaude(args, { env: home().env, cwd: home().projectDir, timeoutMs });

  /** A klaude process to watch while it runs (own process group, like a terminal's job). */
  const spawnKlaude = (
    args: string[],
  ): { child: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> } => {
    const child = spawn(process.execPath, [KLAUDE_CLI, ...args], {
      cwd: home().projectDir,
      env: home().env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    return { child, out: () => out, err: () => err, exit };
  };

  const withDb = <T>(f: (db: Database.Database) => T): T => {
    const db = new Database(join(home().klaudeHome, 'sessions.db'), { readonly: true });
    try {
      return f(db);
    } finally {
      db.close();
    }
  };

  const session = (short: string): SessionRecord =>
    withDb(
      (db) =>
        db
          .prepare('SELECT id, status, runtime, native_session_id, log_path FROM sessions WHERE id LIKE ?')
          .get(`%${short}`) as SessionRecord,
    );

  /** The session's log as events. */
  const events = (short: string): any[] =>
    readFileSync(session(short).log_path!, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));

  /** SIGKILL every runtime the test left running (their process groups: runtime + CLI). */
  const killRuntimes = (): void => {
    try {
      killLeftRuntimes(home().klaudeHome);
    } catch {
      /* no home: setup failed before it was made */
    }
  };

  return { klaude, spawnKlaude, session, events, killRuntimes };
}

export const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;
