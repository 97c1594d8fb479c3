// What klaude does for codex's own sandbox (src/adapters/codex/sandbox.ts, src/runtime/sandbox-check.ts):
// the native binary behind the npm launcher, the `codex-linux-sandbox` link klaude keeps on codex's
// PATH, the check command, how a failed check reads (stderr captured from codex 0.169.0 here), and
// the check's runner with real processes.
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/adapter.js';
import {
  CODEX_SANDBOX_HELPER,
  codexNativeBinary,
  codexPathHelpers,
  codexSandboxCheck,
  explainSandboxFailure,
} from '../../src/adapters/codex/sandbox.js';
import type { LaunchInput, SandboxCheck } from '../../src/adapters/runtime-adapter.js';
import { runSandboxCheck } from '../../src/runtime/sandbox-check.js';
import { NODE_BIN } from '../support/cli-homes.js';

const dir = mkdtempSync(join(tmpdir(), 'klaude-codex-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const onLinux = process.platform === 'linux';
const npmCodex = join(NODE_BIN, 'codex');

function script(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

const input = (o: Partial<LaunchInput> = {}): LaunchInput => ({
  binary: npmCodex,
  cwd: dir,
  nativeSessionId: null,
  resume: false,
  ...o,
});

describe('the native codex behind a binary', () => {
  it.runIf(onLinux)('is found behind the npm launcher (bin/codex.js), and is itself when given', () => {
    const native = codexNativeBinary(npmCodex);
    expect(native).toMatch(/\/@openai\/codex-linux-(x64|arm64)\/vendor\/[\w-]+\/bin\/codex$/);
    expect(codexNativeBinary(native!)).toBe(native);
  });

  it('is none for a wrapper script, a missing file, or another platform', () => {
    expect(codexNativeBinary(script('codex-wrapper', 'exec codex "$@"'))).toBeNull();
    expect(codexNativeBinary(join(dir, 'nope'))).toBeNull();
    expect(codexNativeBinary(npmCodex, 'darwin')).toBeNull();
  });
});

describe('the codex-linux-sandbox link on codex PATH', () => {
  it.runIf(onLinux)('is made in a private dir of the home, and re-pointed when it points elsewhere', () => {
    const home = join(dir, 'home');
    const [helperDir] = codexPathHelpers(npmCodex, home);
    const link = join(helperDir!, CODEX_SANDBOX_HELPER);
    expect(helperDir!.startsWith(join(home, 'bin', 'codex-'))).toBe(true);
    expect(statSync(helperDir!).mode & 0o777).toBe(0o700);
    expect(readlinkSync(link)).toBe(codexNativeBinary(npmCodex));
    rmSync(link);
    symlinkSync('/bin/false', link);
    expect(codexPathHelpers(npmCodex, home)).toEqual([helperDir]);
    expect(readlinkSync(link)).toBe(codexNativeBinary(npmCodex));
  });

  it('is not made when there is no native codex to point at', () => {
    expect(codexPathHelpers(script('codex-other', 'exit 0'), join(dir, 'home2'))).toEqual([]);
  });
});

describe('the sandbox check', () => {
  it.runIf(onLinux)('runs `codex sandbox` around true in the mode of the run; none without a sandbox', () => {
    expect(codexAdapter.sandboxCheck!(input({ permissionMode: 'acceptEdits' }))!.cmd).toEqual({
      file: codexNativeBinary(npmCodex),
      args: ['sandbox', '-c', 'sandbox_mode="workspace-write"', '--', 'true'],
      env: {},
      stdin: 'closed',
    });
    expect(codexAdapter.sandboxCheck!(input({ permissionMode: 'plan' }))!.cmd.args[2]).toBe('sandbox_mode="read-only"');
    expect(codexAdapter.sandboxCheck!(input({ permissionMode: 'bypassPermissions' }))).toBeNull();
  });

  it('is not run off Linux (unverified there)', () => {
    expect(codexSandboxCheck(input(), 'workspace-write', 'darwin')).toBeNull();
  });
});

describe('a failed check, in codex words', () => {
  const tempHomeWarning =
    'WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries under temporary dir "/tmp" (codex_home: AbsolutePathBuf("/tmp/x/codex"))';

  it('no helper on PATH under a bubblewrap without --argv0: the error, then the warning that explains it', () => {
    const r = explainSandboxFailure(
      `${tempHomeWarning}\nbwrap: execvp codex-linux-sandbox: No such file or directory\n`,
    );
    expect(r!.message).toBe(
      `codex's sandbox cannot start here: bwrap: execvp codex-linux-sandbox: No such file or directory | ${tempHomeWarning}`,
    );
    expect(r!.hint).toMatch(/^this bubblewrap has no --argv0 \(older than 0\.9\.0\).*CODEX_HOME outside the temp dir/);
    expect(r!.hint).toContain('permissionMode: bypassPermissions');
  });

  it('no user namespaces: bubblewrap own words, the unrelated warning left out', () => {
    const r = explainSandboxFailure(
      `${tempHomeWarning}\nbwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)\n`,
    );
    expect(r!.message).toBe(
      "codex's sandbox cannot start here: bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
    );
    expect(r!.hint).toMatch(/^bubblewrap cannot create the namespaces it needs here/);
  });

  it('a panic: its message without the location and backtrace notes', () => {
    const r = explainSandboxFailure(
      "\nthread 'main' (308) panicked at linux-sandbox/src/linux_run_main.rs:391:9:\nfilesystem-restricted execution requires bubblewrap to isolate app-server sockets\nstack backtrace:\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n",
    );
    expect(r!.message).toBe(
      "codex's sandbox cannot start here: filesystem-restricted execution requires bubblewrap to isolate app-server sockets",
    );
    expect(r!.hint).toMatch(/^run `codex sandbox -- true` in the agent's directory/);
  });

  it('is no sandbox failure when codex fails for another reason (its config): the launch says so itself', () => {
    // codex 0.169.0 `sandbox -- true` with `model = ` in config.toml: exit 1, and this on stderr.
    const badConfig = `${tempHomeWarning}\nError: /tmp/x/codex/config.toml:1:9: string values must be quoted, expected literal string\n\nCaused by:\n    TOML parse error at line 1, column 9\n\nStack backtrace:\n   0: <unknown>\n   1: <unknown>\n`;
    expect(explainSandboxFailure(badConfig)).toBeNull();
    expect(explainSandboxFailure('')).toBeNull();
  });
});

describe('running the check', () => {
  const check = (file: string): SandboxCheck => ({
    cmd: { file, args: [], env: { CHECK_SAYS: 'from the check env' }, stdin: 'closed' },
    describe: 'the check',
    explain: (stderr) =>
      stderr.includes('not the sandbox') ? null : { message: `failed: ${stderr.trim()}`, hint: 'fix it' },
  });
  const o = { cwd: dir, env: { PATH: process.env.PATH } };

  it('passes (null) when the command exits 0, in the CLI directory and environment', async () => {
    expect(await runSandboxCheck(check(script('ok', `[ "$PWD" = "${dir}" ] && [ -n "$CHECK_SAYS" ]`)), o)).toBeNull();
  });

  it('fails with the explanation of its stderr and the hint', async () => {
    expect(await runSandboxCheck(check(script('fails', 'echo "$CHECK_SAYS" >&2; exit 1')), o)).toBe(
      'failed: from the check env — hint: fix it',
    );
  });

  it('passes a failure that is not the sandbox to the launch (which says why itself)', async () => {
    expect(await runSandboxCheck(check(script('other', 'echo "not the sandbox" >&2; exit 1')), o)).toBeNull();
  });

  it('fails when it does not finish in time, and the command is killed', async () => {
    const pidFile = join(dir, 'hang.pid');
    const r = await runSandboxCheck(check(script('hangs', `echo $$ > ${pidFile}; exec sleep 60`)), {
      ...o,
      timeoutMs: 300,
    });
    expect(r).toBe(
      "the agent's sandbox did not start: `the check` had not finished after 0.3 s — hint: run it in the agent's directory to see where it hangs",
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });

  it('leaves a command that cannot be spawned to the launch (it says why)', async () => {
    expect(await runSandboxCheck(check(join(dir, 'missing')), o)).toBeNull();
  });
});
