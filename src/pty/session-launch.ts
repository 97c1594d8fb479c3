/**
 * What the PTY server needs to start and end one session (server-session.ts uses these): who else
 * drives it (refusal), the CLI's command line, and the records written when the CLI exits.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { loadConfig } from '../config/config.js';
import { klaudeHome } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { activeLink, latestLink } from '../db/repos/links.js';
import { currentProcesses, endProcess } from '../db/repos/processes.js';
import { getProject } from '../db/repos/projects.js';
import { updateSession, type SessionRow } from '../db/repos/sessions.js';
import { hookSettings } from '../hooks/settings.js';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { isAlive } from '../lib/process.js';
import { getAdapter } from '../runtimes/adapter.js';
import { currentInvocation } from '../claude/shim.js';
import { transcriptExists } from '../claude/transcript.js';
import type { PtyExitInfo } from './pty-process.js';

/**
 * Who else drives this session right now (a live process row of another kind, or another PTY
 * server's row). Rows carrying `selfPid` are this server's: it knows its own sessions.
 */
export function busyReason(db: Db, sessionId: string, selfPid: number): string | null {
  const s = shortId(sessionId);
  const fg = currentProcesses(db, sessionId, 'claude').find((p) => isAlive(p.pid));
  if (fg) return `${s} is open in a klaude foreground (claude pid ${fg.pid})`;
  const rt = currentProcesses(db, sessionId, 'runtime').find((p) => isAlive(p.pid));
  if (rt) return `${s} is running headless (runtime pid ${rt.pid})`;
  const other = currentProcesses(db, sessionId, 'pty').find((p) => p.pid !== selfPid && isAlive(p.pid));
  if (other) return `${s} already runs in a PTY session (PTY server pid ${other.pid})`;
  return null;
}

export interface Launch {
  file: string;
  args: string[];
  cwd: string;
  nativeId: string;
  mode: 'resume' | 'new';
}

/**
 * The interactive command for the session: claude with klaude's hooks, or the runtime's own resume.
 * It runs in the session's cwd, else its project's root, else where its starter was.
 */
export async function buildLaunch(db: Db, session: SessionRow, env: NodeJS.ProcessEnv, starterCwd: string): Promise<Launch> {
  const { config } = loadConfig(klaudeHome(env));
  const meta = session.metadata as { cwd?: unknown } | null;
  const root = getProject(db, session.projectId)?.rootPath ?? starterCwd;
  const cwd = typeof meta?.cwd === 'string' && existsSync(meta.cwd) ? meta.cwd : root;
  const adapter = await getAdapter(session.runtime);
  const binary = adapter.resolveBinary(config, env);
  const known =
    session.nativeSessionId ??
    (session.runtime === 'claude' ? (activeLink(db, session.id)?.claudeSessionId ?? latestLink(db, session.id)?.claudeSessionId) : null) ??
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
  const nativeId = known ?? randomUUID();
  const mode = known && transcriptExists(session.transcriptPath, cwd, known, env) ? 'resume' : 'new';
  const settings = JSON.stringify(hookSettings(currentInvocation()));
  const args = [mode === 'resume' ? '--resume' : '--session-id', nativeId, '--settings', settings];
  if (session.model) args.push('--model', session.model);
  return { file: binary, args, cwd, nativeId, mode };
}

function signalName(n: number | null): string | null {
  if (!n) return null;
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0] ?? String(n);
}

/** The CLI exited: end the session's 'pty' row, the session is done (resumable), a pty.exit event. */
export function finishRecords(db: Db, log: Logger, session: SessionRow, rowId: number, e: PtyExitInfo): void {
  try {
    endProcess(db, rowId, { exitCode: e.signal ? null : e.exitCode, signal: signalName(e.signal) });
    updateSession(db, session.id, { status: 'done', endedAt: Date.now() });
    addEvent(db, { projectId: session.projectId, klaudeSessionId: session.id, kind: 'pty.exit', payload: { code: e.exitCode, signal: signalName(e.signal) } });
  } catch (err) {
    log.error('recording the end of the PTY session failed', { err });
  }
}
