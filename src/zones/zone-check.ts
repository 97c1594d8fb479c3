/**
 * `klaude zone check` and `klaude zone setup` (docs/zones.md "Setting a zone up"): over the
 * person's ssh, what the zone lacks — ssh itself, Node, klaude, the claude it would launch, the
 * clone — each with its fix; setup then does the fixes it can do from here: the clone (this
 * project pushed there) and klaude (this machine's `npm pack` tarball installed there under
 * ~/.klaude-zone), and checks again.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shellQuote } from '../claude/shim.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { failed, passed, warned, type CheckResult } from '../doctor/check.js';
import { currentBranch, git, gitTopLevel } from '../git/exec.js';
import { KlaudeError } from '../lib/errors.js';
import { VERSION } from '../lib/version.js';
import { gitEnv } from './git-link.js';
import { prepareSsh, remoteGitUrl, remoteKlaude, remotePath, sshArgv, sshRun, sshWhy, type SshPlace } from './ssh.js';
import type { ZoneFacts } from './serve-check.js';

/** Where `klaude zone setup` installs klaude in a zone, and the command that runs it. */
export const ZONE_PREFIX = '~/.klaude-zone';
export const ZONE_KLAUDE = `${ZONE_PREFIX}/bin/klaude`;

export interface ZoneCheck {
  results: CheckResult[];
  facts: ZoneFacts | null;
}

const NO_NODE = 'KLAUDE-ZONE-NO-NODE';

/** One round trip: Node's presence, then klaude's own look at the zone (serve-check.ts). */
export async function checkZone(p: SshPlace, o: { interactive: boolean }): Promise<ZoneCheck> {
  const { spec } = p;
  const probe = `command -v node >/dev/null 2>&1 || echo ${NO_NODE}; ${remoteKlaude(spec)} __zone-serve --check --path ${shellQuote(spec.path)}`;
  const t0 = Date.now();
  const r = await sshRun(p, probe, { batch: !o.interactive, timeoutMs: 60_000 });
  const first = Date.now() - t0;
  if (r.code === 255 && !r.stdout.includes('{')) {
    const fix = `make \`ssh ${spec.ssh}\` work on its own first (keys, ~/.ssh/config${spec.sshOptions ? ', the zone’s sshOptions' : ''})`;
    return { results: [failed('ssh', `ssh ${spec.ssh}: ${sshWhy(r.stderr)}`, fix)], facts: null };
  }
  const t1 = Date.now();
  await sshRun(p, 'true', { timeoutMs: 30_000 });
  const results = [
    passed('ssh', `${spec.ssh}: ${first} ms the first time, ${Date.now() - t1} ms a round trip after (multiplexed)`),
  ];
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (r.stdout.includes(NO_NODE))
    results.push(
      failed('node', `no node on ${spec.ssh}`, 'install Node 20 or newer there (klaude and claude run on it)'),
    );
  if (!line) {
    const why = sshWhy(r.stderr) || `exit ${r.code}`;
    results.push(
      failed(
        'klaude',
        `\`${remoteKlaude(spec)}\` does not run on ${spec.ssh}: ${why}`,
        `klaude zone setup installs this klaude there`,
      ),
    );
    return { results, facts: null };
  }
  const facts = JSON.parse(line) as ZoneFacts;
  results.push(...facts.checks);
  if (facts.version !== VERSION)
    results.push(
      warned(
        'version',
        `${spec.ssh} runs klaude ${facts.version}, this machine ${VERSION}`,
        'klaude zone setup installs this one there',
      ),
    );
  return { results, facts };
}

/** This project pushed to the zone as its clone (a new repository there, on this branch). */
export function pushClone(p: SshPlace, repo: string): Promise<void> {
  const branch = currentBranch(repo) ?? 'main';
  const at = remotePath(p.spec.path);
  const init = `git init -q -b ${shellQuote(branch)} ${at} && git -C ${at} config receive.denyCurrentBranch updateInstead`;
  return sshRun(p, init).then((r) => {
    if (r.code !== 0)
      throw new KlaudeError('E_ZONE_SETUP', `cannot make the clone on ${p.spec.ssh}: ${sshWhy(r.stderr)}`);
    const pushed = git(repo, ['push', '-q', remoteGitUrl(p.spec), `HEAD:refs/heads/${branch}`], { env: gitEnv(p) });
    if (pushed.code !== 0)
      throw new KlaudeError(
        'E_ZONE_SETUP',
        `pushing to ${p.spec.ssh} failed: ${pushed.stderr.trim().split('\n').pop()}`,
      );
  });
}

/** This klaude's package (`npm pack`, no scripts: dist/ is what runs here) installed in the zone under ZONE_PREFIX. */
export async function installKlaude(p: SshPlace, inv: KlaudeInvocation): Promise<string> {
  const root = path.dirname(path.dirname(inv.cli));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'klaude-pack-'));
  try {
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: root,
      encoding: 'utf8',
      env: p.env,
    });
    const name = pack.stdout.trim().split('\n').pop();
    if (pack.status !== 0 || !name)
      throw new KlaudeError(
        'E_ZONE_SETUP',
        `npm pack failed in ${root}: ${(pack.stderr || pack.stdout).trim().split('\n').pop()}`,
      );
    await upload(p, readFileSync(path.join(dir, name)), `${ZONE_PREFIX}/klaude.tgz`);
    const install = `npm install -g --no-fund --no-audit --prefix ${ZONE_PREFIX} ${ZONE_PREFIX}/klaude.tgz`;
    const r = await sshRun(p, install, { timeoutMs: 15 * 60_000 });
    if (r.code !== 0) throw new KlaudeError('E_ZONE_SETUP', `npm install on ${p.spec.ssh} failed: ${sshWhy(r.stderr)}`);
    return ZONE_KLAUDE;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Bytes to a file over there (its directory made 0700), through ssh's stdin. */
function upload(p: SshPlace, bytes: Buffer, file: string): Promise<void> {
  const dirname = file.slice(0, file.lastIndexOf('/'));
  const cmd = `mkdir -p ${dirname} && chmod 700 ${dirname} && cat > ${file}`;
  prepareSsh(p);
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', sshArgv(p, cmd, { batch: true }), { env: p.env, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve()
        : reject(new KlaudeError('E_ZONE_SETUP', `copying to ${p.spec.ssh} failed: ${sshWhy(err)}`)),
    );
    child.stdin!.end(bytes);
  });
}

/** The fixes setup can make, in order; what it did, one line each. */
export async function setupZone(
  p: SshPlace,
  inv: KlaudeInvocation,
  cwd: string,
  first: ZoneCheck,
): Promise<{ did: string[]; klaude: string | null }> {
  const did: string[] = [];
  let klaude: string | null = null;
  const bad = (check: string): CheckResult | undefined =>
    first.results.find((r) => r.check === check && r.level !== 'ok');
  if (bad('ssh')) throw new KlaudeError('E_ZONE_SETUP', bad('ssh')!.detail, { hint: bad('ssh')!.fix ?? undefined });
  if (bad('node')) throw new KlaudeError('E_ZONE_SETUP', bad('node')!.detail, { hint: bad('node')!.fix ?? undefined });
  if (!first.facts || bad('version')) {
    klaude = await installKlaude(p, inv);
    did.push(`installed klaude ${VERSION} in ${ZONE_PREFIX} on ${p.spec.ssh}`);
  }
  const clone = bad('clone');
  if ((!first.facts || clone?.level === 'error') && first.facts?.head == null) {
    const repo = gitTopLevel(cwd);
    if (!repo)
      throw new KlaudeError(
        'E_NOT_GIT_REPO',
        `${cwd} is not in a git repository: there is nothing to push to the zone`,
      );
    await pushClone(p, repo);
    did.push(`pushed ${repo} (${currentBranch(repo) ?? 'HEAD'}) to ${p.spec.ssh}:${p.spec.path}`);
  }
  return { did, klaude };
}
