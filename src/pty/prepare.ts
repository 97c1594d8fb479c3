/**
 * The starter's half of starting a PTY session (`klaude talk`, the dashboard): everything that
 * needs the config, the runtime adapters and drizzle happens here, in the short-lived starter, so
 * the long-lived PTY server loads none of it. Under the session's conversation claim (one writer
 * per conversation: ownership/conversation-claim.ts), it works out the CLI's command line and environment and
 * links the Claude session up front (the link must exist before claude's first hook); the server
 * then claims the session for good (its 'pty' row) and runs the CLI.
 */
import { randomUuid } from '../lib/random.js';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { klaudeHome } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { activeLink, latestLink, linkClaudeSession } from '../db/repos/links.js';
import { currentProcesses } from '../db/repos/processes.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { hookSettings } from '../hooks/settings.js';
import { agentSettingsArg, agentSettingsFile } from '../hooks/agent-settings.js';
import { KlaudeError } from '../lib/errors.js';
import { liveRows } from '../lib/process.js';
import { claimConversation, releaseConversation } from '../ownership/conversation-claim.js';
import { getAdapter } from '../adapters/registry.js';
import { ensureShim, prependPath, type KlaudeInvocation } from '../claude/shim.js';
import { transcriptExists } from '../claude/transcript.js';
import type { HostRequest } from '../ptyd/protocol.js';
import type { ZoneSpec } from '../config/schema.js';
import { zoneOf } from '../core/zone.js';
import { assertNotMovedAway } from '../agent-ops/message.js';
import { askZone, inZone } from '../zone-client/ask-link.js';
import { zoneOpenCommand } from '../zone-client/ssh-args.js';

export interface Launch {
  file: string;
  args: string[];
  cwd: string;
  nativeId: string;
  mode: 'resume' | 'new';
}

const PURPOSE = 'a PTY session starting';

/**
 * The interactive command for the session: claude with klaude's hooks, or the runtime's own resume.
 * It runs in the session's cwd, else its project's root, else where its starter is.
 */
export async function buildLaunch(
  db: Db,
  session: SessionRow,
  env: NodeJS.ProcessEnv,
  starterCwd: string,
  inv: KlaudeInvocation,
): Promise<Launch> {
  const { config } = loadConfig(klaudeHome(env));
  const meta = session.metadata as { cwd?: unknown } | null;
  const root = getProject(db, session.projectId)?.rootPath ?? starterCwd;
  const zone = zoneOf(session);
  if (zone) return zoneLaunch(klaudeHome(env), config.zones[zone.name], session, env, root);
  const cwd = typeof meta?.cwd === 'string' && existsSync(meta.cwd) ? meta.cwd : root;
  const adapter = await getAdapter(session.runtime);
  const binary = adapter.resolveBinary(config, env);
  const known =
    session.nativeSessionId ??
    (session.runtime === 'claude'
      ? (activeLink(db, session.id)?.claudeSessionId ?? latestLink(db, session.id)?.claudeSessionId)
      : null) ??
    null;
  if (session.runtime !== 'claude') {
    if (!known) {
      throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${shortId(session.id)} has no ${session.runtime} session yet`, {
        hint: `it may still be starting: \`klaude logs ${shortId(session.id)}\``,
      });
    }
    const cmd = adapter.interactiveResume(binary, known);
    return { file: cmd.file, args: cmd.args, cwd, nativeId: known, mode: 'resume' };
  }
  const nativeId = known ?? randomUuid();
  const mode = known && transcriptExists(session.transcriptPath, cwd, known, env) ? 'resume' : 'new';
  const settings = agentSettingsArg(JSON.stringify(hookSettings(inv)), {
    cwd,
    worktreePath: session.worktreePath,
    projectRoot: root,
    file: agentSettingsFile(klaudeHome(env), session.projectId, session.id, 'pty'),
  });
  const args = [mode === 'resume' ? '--resume' : '--session-id', nativeId, '--settings', settings];
  if (session.model) args.push('--model', session.model);
  return { file: binary, args, cwd, nativeId, mode };
}

/**
 * A zone's agent: its conversation is over there, so the PTY runs `ssh -t <zone> klaude __zone-serve
 * --open <id>`, which resumes it in its CLI in its worktree there (zones/serve-open.ts).
 */
function zoneLaunch(
  home: string,
  spec: ZoneSpec | undefined,
  session: SessionRow,
  env: NodeJS.ProcessEnv,
  root: string,
): Launch {
  const zone = zoneOf(session)!.name;
  if (!spec)
    throw new KlaudeError(
      'E_ZONE_NOT_FOUND',
      `${shortId(session.id)} runs in zone ${zone}, which is not in the config`,
      {
        hint: `klaude zone add ${zone} <user@host> <path> adds it back`,
      },
    );
  if (!session.nativeSessionId)
    throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${shortId(session.id)} has no conversation in zone ${zone} yet`, {
      hint: `it may still be starting: \`klaude logs ${shortId(session.id)}\``,
    });
  const cmd = zoneOpenCommand({ home, env, spec }, session.id);
  return { file: cmd.file, args: cmd.args, cwd: root, nativeId: session.nativeSessionId, mode: 'resume' };
}

/** The environment of a session's interactive CLI: its starter's, with klaude's KLAUDE_* and PATH shim. */
export function interactiveEnv(
  o: { home: string; env: NodeJS.ProcessEnv; inv: KlaudeInvocation },
  session: Pick<SessionRow, 'id' | 'projectId'>,
  projectPath: string,
): NodeJS.ProcessEnv {
  return {
    ...o.env,
    KLAUDE_HOME: o.home,
    KLAUDE_PROJECT_HASH: session.projectId,
    KLAUDE_PROJECT_PATH: projectPath,
    KLAUDE_SESSION_ID: session.id,
    KLAUDE_INSTANCE_ID: undefined,
    KLAUDE_SOCKET: undefined,
    PATH: prependPath(ensureShim(o.home, o.inv), o.env.PATH),
  };
}

export interface PrepareOptions {
  home: string;
  sessionId: string;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  cwd: string;
  size: { cols: number; rows: number };
}

/**
 * Take the session's claim, prepare the host request and hand it to `send` (which asks the server);
 * the claim is released once `send` settled (by then the server's 'pty' row says who writes).
 */
export async function withPreparedRequest<T>(
  db: Db,
  o: PrepareOptions,
  send: (req: HostRequest) => Promise<T>,
): Promise<T> {
  const session = getSession(db, o.sessionId);
  if (!session) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(o.sessionId)} not found`);
  const s = shortId(session.id);
  claimConversation(db, session.id, PURPOSE, () => {
    assertNotMovedAway(session); // taken to the person's machine by a zone's checkout
    const fg = liveRows(currentProcesses(db, session.id, 'claude'))[0];
    if (fg)
      throw new KlaudeError('E_SESSION_BUSY', `${s} is open in a klaude foreground (claude pid ${fg.pid})`, {
        hint: 'detach or exit it there first',
      });
    const rt = liveRows(currentProcesses(db, session.id, 'runtime'))[0];
    if (rt)
      throw new KlaudeError('E_SESSION_BUSY', `${s} is running headless (runtime pid ${rt.pid})`, {
        hint: `wait for it: \`klaude wait ${s}\``,
      });
  });
  try {
    const zone = zoneOf(session);
    // Asked of the zone before a PTY is made: running, open or taken over there, or out of reach.
    if (zone) {
      const access = { home: o.home, env: o.env, inv: o.inv, zone: zone.name };
      await askZone(access, { op: 'open-check', sid: session.id }).catch((e: unknown) => {
        throw inZone(e, zone.name);
      });
    }
    const launch = await buildLaunch(db, session, o.env, o.cwd, o.inv);
    if (session.runtime === 'claude' && !zone) {
      linkClaudeSession(db, {
        klaudeSessionId: session.id,
        claudeSessionId: launch.nativeId,
        source: launch.mode === 'new' ? 'startup' : 'resume',
      });
    }
    const env = interactiveEnv(o, session, getProject(db, session.projectId)?.rootPath ?? o.cwd);
    return await send({
      op: 'host',
      sessionId: session.id,
      projectId: session.projectId,
      file: launch.file,
      args: launch.args,
      cwd: launch.cwd,
      env,
      nativeId: launch.nativeId,
      mode: launch.mode,
      cols: o.size.cols,
      rows: o.size.rows,
      starterPid: process.pid,
    });
  } finally {
    releaseConversation(db, session.id, PURPOSE);
  }
}
