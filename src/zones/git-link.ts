/**
 * git across the zone's connection (docs/zones.md "Review"): this machine's commit pushed to the
 * zone's clone when an agent there must start from it, and an agent's branch fetched back for a
 * merge here — both with the person's own ssh, riding the same multiplexed connection as the link.
 */
import { git } from '../git/exec.js';
import { KlaudeError } from '../lib/errors.js';
import { shortId } from '../core/ids.js';
import { gitSshCommand, prepareSsh, remoteGitUrl, type SshPlace } from './ssh.js';

export function gitEnv(p: SshPlace): NodeJS.ProcessEnv {
  prepareSsh(p);
  return { ...p.env, GIT_SSH_COMMAND: gitSshCommand(p), GIT_TERMINAL_PROMPT: '0' };
}

function failed(what: string, r: { stderr: string; stdout: string; code: number }): KlaudeError {
  const why = (r.stderr || r.stdout).trim().split('\n').pop() ?? `exit ${r.code}`;
  return new KlaudeError('E_GIT', `${what}: ${why}`, {
    hint: 'klaude zone check <zone> tries the connection and the clone',
  });
}

/** Put `commit` into the zone's clone (under refs/klaude/base/, so no branch of anyone's moves). */
export function pushBase(p: SshPlace, repo: string, commit: string, sid: string): Promise<void> {
  const ref = `refs/klaude/base/${shortId(sid).toLowerCase()}`;
  const r = git(repo, ['push', '-q', remoteGitUrl(p.spec), `${commit}:${ref}`], { env: gitEnv(p) });
  if (r.code !== 0) throw failed(`pushing ${commit.slice(0, 10)} to zone ${p.spec.ssh}`, r);
  return Promise.resolve();
}

/** Fetch the agent's branch from the zone into the same branch here (it must not be checked out here). */
export function fetchBranch(p: SshPlace, repo: string, branch: string): void {
  const r = git(
    repo,
    ['fetch', '-q', '--no-tags', remoteGitUrl(p.spec), `+refs/heads/${branch}:refs/heads/${branch}`],
    {
      env: gitEnv(p),
    },
  );
  if (r.code !== 0) throw failed(`fetching ${branch} from zone ${p.spec.ssh}`, r);
}
