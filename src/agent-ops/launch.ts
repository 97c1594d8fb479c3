/**
 * Starting an agent runtime: `node <klaude cli> __runtime <sessionId>`, detached (own session and
 * process group, so it survives the supervisor, the terminal and the Bash-tool call that started
 * it), with the launch request as one JSON document on its stdin (no argv size limit, nothing on
 * disk). Its own stdout is discarded; stderr goes to klaude's log file (crash traces).
 * The same function serves `klaude start` (directly or in the supervisor), `klaude message`, the
 * queue and recovery; every launch keeps its environment for the session (launch-env.ts).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { keepLaunchEnv } from './launch-env.js';
import { SCOPE_ENV } from '../sandbox/channel-paths.js';
import { isImageRef, type ImageRef } from '../core/image.js';

export const RUNTIME_COMMAND = '__runtime';

/** What the runtime is asked to do on this launch (the rest comes from the session row). */
export interface RuntimeRequest {
  /** The message to send first. */
  prompt: string;
  source: 'start' | 'message' | 'recover';
  /** `--share` context appended to the first message. */
  share?: string | null;
  /** source 'recover': why the previous run died mid-turn (the prompt is the resume prompt). */
  recoverCause?: string;
  /** Images sent with the prompt (a message to a stopped claude agent). */
  images?: ImageRef[];
}

export interface SpawnRuntimeOptions {
  home: string;
  sessionId: string;
  request: RuntimeRequest;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Spawn the runtime and hand it its request; resolves with its pid once the request is delivered. */
export function spawnRuntime(o: SpawnRuntimeOptions): Promise<number> {
  // A sandboxed agent's klaude acts in its scope; the runtimes it starts are agents' own, unscoped.
  const env: NodeJS.ProcessEnv = { ...o.env, KLAUDE_HOME: o.home };
  delete env[SCOPE_ENV];
  try {
    keepLaunchEnv(o.home, o.sessionId, { env, inv: o.inv });
  } catch {
    /* not kept: a recovery of this run launches it with the recovering caller's environment */
  }
  let errFd: number | 'ignore' = 'ignore';
  try {
    errFd = openSync(logFilePath(o.home), 'a', 0o600);
  } catch {
    /* no log file: crash output is lost, nothing else */
  }
  return new Promise<number>((resolve, reject) => {
    const child = spawn(o.inv.node, [o.inv.cli, RUNTIME_COMMAND, o.sessionId], {
      cwd: o.cwd,
      env,
      detached: true,
      stdio: ['pipe', 'ignore', errFd],
    });
    if (typeof errFd === 'number') closeSync(errFd);
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      reject(new KlaudeError('E_IO', `could not start the agent runtime: ${e.message}`, { cause: e }));
    };
    child.once('error', fail);
    child.stdin!.once('error', fail);
    child.once('spawn', () => {
      child.stdin!.end(`${JSON.stringify(o.request)}\n`, () => {
        if (settled) return;
        settled = true;
        child.removeListener('error', fail);
        child.unref();
        resolve(child.pid!);
      });
    });
  });
}

/** Read the launch request from stdin (the runtime side). */
export async function readRuntimeRequest(
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<RuntimeRequest> {
  if (stdin.isTTY)
    throw new KlaudeError('E_USAGE', '`klaude __runtime` is internal: `klaude start` runs it', {
      hint: 'use `klaude start <type> "<prompt>"`',
    });
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  const text = Buffer.concat(chunks).toString('utf8').trim();
  const parsed = JSON.parse(text) as Partial<RuntimeRequest>;
  if (
    typeof parsed.prompt !== 'string' ||
    (parsed.source !== 'start' && parsed.source !== 'message' && parsed.source !== 'recover')
  ) {
    throw new KlaudeError('E_BAD_REQUEST', 'malformed runtime request on stdin');
  }
  return {
    prompt: parsed.prompt,
    source: parsed.source,
    share: typeof parsed.share === 'string' ? parsed.share : null,
    ...(typeof parsed.recoverCause === 'string' ? { recoverCause: parsed.recoverCause } : {}),
    ...(Array.isArray(parsed.images) && parsed.images.every(isImageRef) ? { images: parsed.images } : {}),
  };
}
