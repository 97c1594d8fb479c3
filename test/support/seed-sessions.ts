// Seed a temp home's DB with sessions (through the real repos), and run a long-lived klaude
// command whose output a test can wait on (`logs -f`, `watch`).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { projectHash } from '../../src/config/paths.js';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { KLAUDE_CLI } from './klaude-bin.js';
import type { TempHome } from './temp-home.js';

export interface Seeded {
  db: Db;
  /** The project id (hash of the temp project dir) that `klaude` run in `projectDir` uses. */
  hash: string;
}

/** Open the temp home's DB (creating and migrating it) with the project row of `h.projectDir`. */
export function seedProject(h: TempHome): Seeded {
  const db = openDb(h.klaudeHome);
  const hash = projectHash(h.projectDir);
  ensureProject(db, { hash, rootPath: h.projectDir });
  return { db, hash };
}

export interface LiveKlaude {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches (bounded: rejects with the output so far). */
  waitForOutput(re: RegExp, ms?: number): Promise<void>;
  /** Resolves with the exit code (bounded). */
  exited(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

/** Spawn `node dist/cli.js …args` and keep it running. */
export function spawnKlaude(args: string[], opts: { env: Record<string, string>; cwd: string }): LiveKlaude {
  const child = spawn(process.execPath, [KLAUDE_CLI, ...args], {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let listeners: (() => void)[] = [];
  const changed = () => {
    for (const l of listeners) l();
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    changed();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    changed();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      changed();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitForOutput(re, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (re.test(out)) {
            done();
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`klaude exited before printing ${re}\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${re}\nstdout:\n${out}\nstderr:\n${err}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners = listeners.filter((l) => l !== check);
        };
        listeners.push(check);
        check();
      });
    },
    exited(ms = 15_000) {
      return Promise.race([
        exit,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`klaude did not exit within ${ms} ms\nstdout:\n${out}\nstderr:\n${err}`)),
            ms,
          ).unref(),
        ),
      ]);
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
