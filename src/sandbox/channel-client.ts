/**
 * `klaude` as a sandboxed agent runs it (dist/agent-client.cjs, put first on the agent's PATH by
 * its channel's `bin/klaude`): it cannot reach klaude's database or sockets from inside the
 * sandbox, and does not try. It hands its command line to the agent's own channel (files in its io
 * directory, channel-frames.ts) and prints what comes back. Which commands exist there, and for
 * which sessions, is the server's to decide (runtime/agent-channel.ts, commands/agents/agent-scope.ts):
 * this file grants nothing.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import { CHANNEL_ENV } from './channel-paths.js';
import {
  ACCEPT_TIMEOUT_MS,
  MAX_REQUEST_BYTES,
  PASSED_ENV,
  type ChannelFrame,
  type ChannelRequest,
} from './channel-frames.js';

function fail(message: string, hint: string): never {
  process.stderr.write(`klaude: ${message} [E_AGENT_CHANNEL] — hint: ${hint}\n`);
  process.exit(1);
}

/** The prompt comes from stdin: `start <type> -`, `--prompt-file -`, `message <id> -`. */
function wantsStdin(argv: string[]): boolean {
  return argv.some((a, i) => a === '-' || a === '--prompt-file=-' || (a === '--prompt-file' && argv[i + 1] === '-'));
}

function request(argv: string[]): ChannelRequest {
  const env: Record<string, string> = {};
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  const req: ChannelRequest = { argv, cwd: process.cwd(), env };
  if (wantsStdin(argv) && !process.stdin.isTTY) {
    const text = readFileSync(0, 'utf8');
    if (Buffer.byteLength(text) > MAX_REQUEST_BYTES - 64 * 1024)
      fail('the prompt on stdin is too large for the agent channel', 'keep it under 8 MiB');
    req.stdin = text;
  }
  return req;
}

function main(): void {
  const io = process.env[CHANNEL_ENV];
  if (!io) fail('this klaude only runs inside a sandboxed agent', `${CHANNEL_ENV} is not set`);
  const id = randomBytes(8).toString('hex');
  const at = (ext: string): string => path.join(io, `${id}.${ext}`);
  const cleanup = (): void => {
    for (const ext of ['out', 'in', 'tmp', 'req'])
      try {
        unlinkSync(at(ext));
      } catch {
        /* gone already */
      }
  };
  process.on('exit', cleanup);
  try {
    execFileSync('mkfifo', ['-m', '600', at('out'), at('in')], { stdio: 'ignore' });
  } catch (e) {
    fail(`cannot make the agent channel's pipes in ${io}: ${(e as Error).message}`, 'is this agent still running?');
  }
  // Held open while this process lives: its end (any signal) is the server's sign we are gone.
  openSync(at('in'), 'r+');
  const out = new Socket({ fd: openSync(at('out'), constants.O_RDONLY | constants.O_NONBLOCK), writable: false });
  writeFileSync(at('tmp'), JSON.stringify(request(process.argv.slice(2))), { mode: 0o600 });
  renameSync(at('tmp'), at('req'));
  follow(out);
}

function follow(out: Socket): void {
  let exited: number | null = null;
  const timer = setTimeout(
    () => fail('the agent channel did not answer', "this agent's klaude runtime may have stopped: try again"),
    ACCEPT_TIMEOUT_MS,
  );
  let buf = '';
  out.setEncoding('utf8');
  out.on('data', (chunk: string) => {
    buf += chunk;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let f: ChannelFrame;
      try {
        f = JSON.parse(line) as ChannelFrame;
      } catch {
        continue;
      }
      if (f.t === 'hello') clearTimeout(timer);
      else if (f.t === 'o') process.stdout.write(f.d);
      else if (f.t === 'e') process.stderr.write(f.d);
      else if (f.t === 'exit') exited = f.code;
    }
  });
  out.on('end', () => {
    clearTimeout(timer);
    if (exited === null) fail('the agent channel closed before the command ended', "this agent's runtime stopped");
    // Exit once stdout is written out (a pipe may still hold the last of it).
    process.stdout.write('', () => process.exit(exited ?? 1));
  });
}

try {
  main();
} catch (e) {
  fail(`the agent channel failed: ${(e as Error).message}`, 'try again');
}
