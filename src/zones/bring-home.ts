/**
 * `klaude checkout <id>` of a zone's agent: its conversation comes to this machine and goes on here.
 * The zone gives it up first (zones/serve-handover.ts: refused while it runs unless forced, its
 * uncommitted work committed on its branch, its row there marked so nothing there resumes it
 * again), then, over the same ssh connection: its branch is fetched into the same branch here and
 * checked out in a worktree of its own (where a worktree agent of this machine works), and its
 * transcript (with the directory claude keeps beside it) is copied to where claude run in that
 * worktree looks for it. From then on it is an agent of this machine (its row keeps `fromZone`):
 * `diff`, `merge`, `message`, `talk` and `fork` treat it as one. A checkout whose second half fails
 * can be asked again: the zone answers the same, and what is here already is kept.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { KlaudeInvocation } from '../claude/shim.js';
import { shellQuote } from '../claude/shim.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import type { Config } from '../config/schema.js';
import { zoneOf } from '../core/zone.js';
import type { Db } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { gitTopLevel } from '../git/exec.js';
import { agentWorktreeDir, agentWorktreeOnBranch } from '../git/worktree.js';
import { KlaudeError } from '../lib/errors.js';
import { appendSessionEvent } from '../logs/writer.js';
import { askZone } from '../zone-client/ask-link.js';
import { fetchBranch } from './git-link.js';
import type { Handover } from './serve-handover.js';
import { sshArgv, sshWhy, type SshPlace } from './ssh.js';
import { zoneSpec } from './zone-start.js';

/** What bringing an agent here takes from the supervisor (or any caller in the agent's project). */
export interface HomeReach {
  home: string;
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
  config: Config;
  db: Db;
  projectRoot: string;
}

/** Bring `s` (a zone's agent) here; its row as it is now, an agent of this machine. */
export async function bringHome(r: HomeReach, s: SessionRow, o: { force: boolean }): Promise<SessionRow> {
  const zone = zoneOf(s)!.name;
  const place: SshPlace = { home: r.home, env: r.env, spec: zoneSpec(r, zone) };
  const h = await askZone<Handover>({ ...r, zone }, { op: 'handover', sid: s.id, force: o.force }, 200_000);
  const top = gitTopLevel(r.projectRoot);
  const startedIn = (s.metadata as { cwd?: unknown } | null)?.cwd;
  let wt: { path: string; cwd: string } | null = null;
  if (h.branch && top) {
    // Kept when a checkout asked again finds it here (its branch is checked out in it: no fetch into it).
    if (!existsSync(agentWorktreeDir(r.home, s.projectId, s.id))) fetchBranch(place, top, h.branch);
    wt = agentWorktreeOnBranch({
      home: r.home,
      projectHash: s.projectId,
      sessionId: s.id,
      top,
      branch: h.branch,
      sub: h.sub,
    });
  }
  const cwd = wt?.cwd ?? (typeof startedIn === 'string' ? startedIn : r.projectRoot);
  const transcript = claudeTranscriptPath(cwd, h.nativeSessionId, r.env);
  await fetchTranscript(place, h.transcript, path.dirname(transcript), zone);
  return settle(r, s, h, { zone, cwd, wt, transcript });
}

/** The row becomes an agent of this machine's, working in `wt`; its log and events say so. */
function settle(
  r: HomeReach,
  s: SessionRow,
  h: Handover,
  o: { zone: string; cwd: string; wt: { path: string } | null; transcript: string },
): SessionRow {
  const { zone: _zone, ...meta } = (s.metadata ?? {}) as Record<string, unknown>;
  const metadata = {
    ...meta,
    cwd: o.cwd,
    projectRoot: r.projectRoot,
    // Launched as it was over there (its definition as the zone resolved it), should it run headless here.
    ...(h.agent ? { agent: h.agent } : {}),
    ...(h.sandbox ? { sandbox: h.sandbox } : {}),
    fromZone: { name: o.zone, host: h.host, at: Date.now() },
  };
  const row = updateSession(r.db, s.id, {
    metadata,
    nativeSessionId: h.nativeSessionId,
    transcriptPath: o.transcript,
    worktreePath: o.wt?.path ?? null,
    worktreeBranch: h.branch,
    worktreeBase: h.base ?? s.worktreeBase,
  })!;
  const where = o.wt ? `its worktree ${o.wt.path} (branch ${h.branch})` : o.cwd;
  if (s.logPath)
    appendSessionEvent(s.logPath, {
      type: 'status',
      status: row.status,
      reason: `brought here from zone ${o.zone} (klaude checkout): it goes on in ${where}`,
    });
  addEvent(r.db, {
    projectId: s.projectId,
    klaudeSessionId: s.id,
    kind: 'zone.checkout',
    payload: { zone: o.zone, host: h.host, branch: h.branch, tip: h.tip, committed: h.committed },
  });
  return getSession(r.db, s.id) ?? row;
}

/**
 * The conversation's files from over there into `toDir`: `<id>.jsonl` and, when claude keeps one,
 * the `<id>/` directory beside it (sub-agents' transcripts, large tool results) — one tar stream
 * over the zone's multiplexed ssh connection.
 */
function fetchTranscript(p: SshPlace, from: Handover['transcript'], toDir: string, zone: string): Promise<void> {
  mkdirSync(toDir, { recursive: true, mode: 0o700 });
  const id = shellQuote(from.file.replace(/\.jsonl$/, ''));
  const file = shellQuote(from.file);
  const command = `cd ${shellQuote(from.dir)} && if [ -d ${id} ]; then exec tar -cf - -- ${file} ${id}; else exec tar -cf - -- ${file}; fi`;
  const failed = (why: string): KlaudeError =>
    new KlaudeError('E_IO', `copying the conversation from zone ${zone} failed: ${why}`, {
      hint: `klaude zone check ${zone} tries the connection; the same checkout again goes on from here`,
    });
  return new Promise((resolve, reject) => {
    const ssh = spawn('ssh', sshArgv(p, command, { batch: true }), { env: p.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-xf', '-', '--no-same-owner', '-C', toDir], { stdio: ['pipe', 'ignore', 'pipe'] });
    let sshErr = '';
    let tarErr = '';
    ssh.stderr.on('data', (d: Buffer) => (sshErr = (sshErr + d.toString()).slice(-4000)));
    tar.stderr.on('data', (d: Buffer) => (tarErr = (tarErr + d.toString()).slice(-4000)));
    tar.stdin.on('error', () => undefined); // tar gone early: its own exit says why
    ssh.stdout.pipe(tar.stdin);
    const codes: { ssh?: number | null; tar?: number | null } = {};
    const settle = (): void => {
      if (!('ssh' in codes) || !('tar' in codes)) return;
      if (codes.ssh !== 0) reject(failed(sshWhy(sshErr) || `ssh exited with ${codes.ssh}`));
      else if (codes.tar !== 0) reject(failed(tarErr.trim().split('\n').pop() || `tar exited with ${codes.tar}`));
      else resolve();
    };
    ssh.once('error', (e) => reject(failed(e.message)));
    tar.once('error', (e) => reject(failed(`tar: ${e.message}`)));
    ssh.once('close', (c) => ((codes.ssh = c), settle()));
    tar.once('close', (c) => ((codes.tar = c), settle()));
  });
}
