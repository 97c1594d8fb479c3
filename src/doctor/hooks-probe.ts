/**
 * Do hooks really fire? A throwaway headless claude with exactly the hooks klaude injects
 * (hooks/settings.ts) and no prompt: claude runs SessionStart as it starts, then reads an empty
 * stdin and exits 0 having made no model request (seen with 2.1.197: its only request to the API
 * base URL is a `HEAD /`; ~2 s in all). `disableAllHooks` stops it as it stops any launch. The
 * hook is klaude's own entry, recording into a temporary KLAUDE_HOME that holds one session, so a
 * link row there proves the whole path: the person's Claude settings let the hook run, the hook
 * command starts, and it records. It runs in the project's directory, so the project's settings
 * count too (and the person's own SessionStart hooks run, as at any launch).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildClaudeCommand } from '../adapters/claude/adapter.js';
import { claudeConfigDir } from '../claude/config-dir.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { reinstallHint } from '../config/install.js';
import { logFilePath, projectHash } from '../config/paths.js';
import { openDb } from '../db/client.js';
import { linkOwner } from '../db/repos/hook-records.js';
import { ensureProject } from '../db/repos/projects.js';
import { createSession } from '../db/repos/sessions.js';
import { hookSettings } from '../hooks/settings.js';
import { randomUuid } from '../lib/random.js';
import { failed, passed, type CheckResult } from './check.js';

export interface HooksProbeInput {
  /** The claude klaude would launch (null: not found, the probe is skipped). */
  binary: string | null;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  /** The project root: claude reads its .claude/settings*.json there. */
  root: string;
  timeoutMs?: number;
}

interface ProbeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

const CHECK = 'hooks';
const MAX_OUTPUT = 256 * 1024;

export async function probeHooks(o: HooksProbeInput): Promise<CheckResult> {
  if (!o.binary) return failed(CHECK, 'not checked: no claude to run', 'fix the claude line first');
  const probeHome = mkdtempSync(path.join(tmpdir(), 'klaude-doctor-'));
  try {
    const sessionId = prepareProbeHome(probeHome, o.root);
    const claudeId = randomUuid();
    const cmd = buildClaudeCommand({
      binary: o.binary,
      cwd: o.root,
      nativeSessionId: claudeId,
      resume: false,
      settings: JSON.stringify(hookSettings(o.inv)),
    });
    const env: NodeJS.ProcessEnv = { ...o.env, ...cmd.env, KLAUDE_HOME: probeHome, KLAUDE_SESSION_ID: sessionId };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const started = Date.now();
    const run = await runClosed(
      cmd.file,
      [...cmd.args, '--no-session-persistence'],
      o.root,
      env,
      o.timeoutMs ?? 30_000,
    );
    const recorded = linkedTo(probeHome, claudeId) === sessionId;
    if (recorded)
      return passed(
        CHECK,
        `SessionStart ran klaude's hook and it recorded (${Date.now() - started} ms, no model request)`,
      );
    return diagnose(run, probeHome, o);
  } finally {
    rmSync(probeHome, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** A fresh DB in the probe home with the one session the hook will link (its klaude id). */
function prepareProbeHome(probeHome: string, root: string): string {
  const db = openDb(probeHome);
  try {
    const project = ensureProject(db, { hash: projectHash(root), rootPath: root });
    return createSession(db, { projectId: project.id, type: 'tui', title: 'klaude doctor probe' }).id;
  } finally {
    db.close();
  }
}

function linkedTo(probeHome: string, claudeId: string): string | undefined {
  const db = openDb(probeHome);
  try {
    return linkOwner(db, claudeId);
  } finally {
    db.close();
  }
}

/** Run with stdin at EOF from the start (no prompt: no model request), output bounded. */
function runClosed(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<ProbeRun> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout = (stdout + c.toString('utf8')).slice(-MAX_OUTPUT)));
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-MAX_OUTPUT)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${e.message}`, timedOut });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

interface HookLine {
  subtype?: string;
  hook_event?: string;
  exit_code?: number;
  outcome?: string;
  stderr?: string;
}

function sessionStartLines(stdout: string): HookLine[] {
  const out: HookLine[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.includes('"hook_event"')) continue;
    try {
      const e = JSON.parse(line) as HookLine & { type?: string };
      if (e.type === 'system' && e.hook_event === 'SessionStart') out.push(e);
    } catch {
      /* not a JSON line */
    }
  }
  return out;
}

/** Why the probe recorded nothing, and what to do about it. */
function diagnose(run: ProbeRun, probeHome: string, o: HooksProbeInput): CheckResult {
  const lastLine = (s: string): string => s.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
  if (run.timedOut) {
    return failed(
      CHECK,
      `the probe claude did not exit within ${Math.round((o.timeoutMs ?? 30_000) / 1000)} s`,
      'run `klaude doctor` again; if it repeats, check that `claude -p` works in this directory',
    );
  }
  const lines = sessionStartLines(run.stdout);
  if (lines.length === 0) {
    const off = hooksSwitchedOff(o.env, o.root);
    if (off)
      return failed(
        CHECK,
        `claude ran no hook: ${off.key} is true in ${off.file}`,
        `remove ${off.key} from ${off.file}: klaude keeps its records through hooks`,
      );
    if (run.code !== 0)
      return failed(
        CHECK,
        `claude exited ${String(run.code)}: ${lastLine(run.stderr) || 'no message'}`,
        "run the claude line's binary with `-p` in this directory to see why",
      );
    return failed(
      CHECK,
      'claude ran no SessionStart hook from the settings klaude passes',
      "look for hook settings that override klaude's (claude /hooks lists them)",
    );
  }
  const response = lines.find((l) => l.subtype === 'hook_response');
  const log = logFilePath(probeHome);
  const logged = existsSync(log) ? lastLine(readFileSync(log, 'utf8')) : '';
  const why =
    response && response.exit_code !== 0
      ? `exit ${String(response.exit_code)}: ${lastLine(response.stderr ?? '')}`
      : logged || 'nothing was recorded';
  return failed(
    CHECK,
    `the hook ran but did not record (${why})`,
    `its dist/hook.cjs or database code is broken: reinstall klaude (${reinstallHint()})`,
  );
}

/**
 * A settings file that switches klaude's hooks off: `disableAllHooks` in any layer (user, project,
 * local, managed policy), or `allowManagedHooksOnly` in the managed policy (the only layer claude
 * reads it from).
 */
function hooksSwitchedOff(env: NodeJS.ProcessEnv, root: string): { file: string; key: string } | null {
  const managedDir = process.platform === 'darwin' ? '/Library/Application Support/ClaudeCode' : '/etc/claude-code';
  const managed = path.join(managedDir, 'managed-settings.json');
  const files = [
    managed,
    path.join(claudeConfigDir(env), 'settings.json'),
    path.join(root, '.claude', 'settings.json'),
    path.join(root, '.claude', 'settings.local.json'),
  ];
  for (const file of files) {
    let s: Record<string, unknown>;
    try {
      s = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (s.disableAllHooks === true) return { file, key: 'disableAllHooks' };
    if (file === managed && s.allowManagedHooksOnly === true) return { file, key: 'allowManagedHooksOnly' };
  }
  return null;
}
