// Run a klaude command as a person would at a terminal of their own: under a real PTY, in its
// foreground, descended from no claude klaude launched. Answers to permission requests count as the
// person's only from such a place (src/ownership/answerer.ts), so tests that approve or deny use this.
import { KLAUDE_CLI } from './klaude-bin.js';
import { spawnPty } from './pty-driver.js';
import type { RunProcessResult } from './run-process.js';

// CSI and OSC sequences, and the other lone ESC forms, of the terminal's output.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

export async function runInTerminal(
  args: string[],
  opts: { env: Record<string, string | undefined>; cwd: string; timeoutMs?: number },
): Promise<RunProcessResult> {
  const s = spawnPty(process.execPath, [KLAUDE_CLI, ...args], { env: opts.env, cwd: opts.cwd, cols: 220, rows: 50 });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      s.kill();
      reject(new Error(`klaude ${args.join(' ')} did not end within ${opts.timeoutMs ?? 60_000} ms:\n${s.text()}`));
    }, opts.timeoutMs ?? 60_000);
  });
  try {
    const exit = await Promise.race([s.exited, timeout]);
    const out = s.rawOutput().replace(ESCAPES, '').replace(/\r\n?/g, '\n');
    // A terminal has one stream: both fields hold it.
    return { code: exit.exitCode, signal: null, stdout: out, stderr: out };
  } finally {
    clearTimeout(timer);
  }
}
