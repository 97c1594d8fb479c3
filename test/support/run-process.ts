// Spawn a process, feed optional stdin, collect stdout/stderr, bounded by a timeout.
import { spawn } from 'node:child_process';

export interface RunProcessOptions {
  /** Full env for the child; defaults to process.env. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Written to stdin, then stdin is closed (closed at once without it). */
  input?: string;
  /** SIGKILL the child after this long and reject with its output so far; default 30 000 ms. */
  timeoutMs?: number;
}

export interface RunProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function runProcess(file: string, args: string[], opts: RunProcessOptions = {}): Promise<RunProcessResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd ?? process.cwd(),
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {}); // the child may exit without reading stdin
    child.stdin.end(opts.input ?? undefined);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${file} ${args.join(' ')} timed out after ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
      );
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Parse NDJSON output (stream-json); throws naming the first line that is not JSON. */
export function parseNdjson(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch {
        throw new Error(`line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
      }
    });
}
