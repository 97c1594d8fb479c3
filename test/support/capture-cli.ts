// Shared by the capture scripts in test/fixtures/<cli>/: run the command an adapter builds (the
// exact argv klaude uses) in a temp home against the stand-ins, and write its scrubbed stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LaunchCommand } from '../../src/adapters/runtime-adapter.js';
import { scrub } from './cli-homes.js';
import type { TempHome } from './temp-home.js';

export interface CaptureRun {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Spawn a LaunchCommand like the runtime does (stdin closed or fed), collect its output. */
export function runCommand(
  cmd: LaunchCommand,
  home: TempHome,
  opts: { timeoutMs?: number; onStdout?: (text: string) => void; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<CaptureRun> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...home.env, PWD: home.projectDir };
    for (const [k, v] of Object.entries(cmd.env)) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    const child = spawn(cmd.file, cmd.args, {
      cwd: home.projectDir,
      env,
      stdio: [cmd.stdin === 'closed' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (cmd.stdin === 'text') child.stdin!.end(cmd.stdinText ?? '');
    opts.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      opts.onStdout?.(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd.file} timed out\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, signal });
    });
  });
}

/** Write `<dir>/<name>` with the scrubbed stdout; refuses output that contains a test key. */
export function writeFixture(
  dir: string,
  name: string,
  run: CaptureRun,
  home: TempHome,
  ports: number[],
  secrets: string[],
): void {
  const out = scrub(run.stdout, home, ports);
  for (const s of secrets) if (s && out.includes(s)) throw new Error(`${name}: output contains a key`);
  writeFileSync(join(dir, name), out.endsWith('\n') || out === '' ? out : `${out}\n`);
  console.log(`wrote ${name} (${out.split('\n').filter(Boolean).length} lines, exit ${run.code ?? run.signal})`);
  if (run.code !== 0 && run.stderr.trim())
    console.log(`  stderr: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
}
