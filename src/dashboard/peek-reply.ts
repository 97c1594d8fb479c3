/**
 * Peek and reply without switching: a session's last screen (its PTY session, read as a viewer)
 * or last message, and one line typed into the prompt of a CLI in the PTY server.
 *
 * A reply attaches as the session's controller for the moment it types, so the PTY host's
 * one-controller rule is the one-writer rule here: while someone is attached (`klaude talk`, the
 * dashboard's t) the host refuses and names them. A session open in a klaude foreground has no PTY
 * and is refused here with its pid. The reply asks for no size (hello with 0×0): the PTY keeps the
 * size it has, so the CLI does not redraw for it.
 */
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { currentProcesses } from '../db/repos/processes.js';
import { getSession } from '../db/repos/sessions.js';
import { stripControls } from '../lib/escapes.js';
import { KlaudeError } from '../lib/errors.js';
import { liveRows } from '../lib/process.js';
import { connectPty } from '../pty/host-client.js';
import { openPtyViewer } from '../pty/viewer.js';
import { ptySocketPath } from '../ptyd/socket-path.js';

export interface PeekReplyDeps {
  home: string;
  db: Db;
  env: NodeJS.ProcessEnv;
}

/** How long the reply waits for the CLI to draw what was typed before pressing Enter anyway. */
const ECHO_WAIT_MS = 2000;

function sessionOf(d: PeekReplyDeps, id: string) {
  const s = getSession(d.db, id);
  if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `no session ${shortId(id)}`);
  return s;
}

/** The session's PTY screen as lines, or its last assistant message's lines. */
export async function peekLines(d: PeekReplyDeps, id: string, what: 'screen' | 'message'): Promise<string[]> {
  const s = sessionOf(d, id);
  if (what === 'message') {
    const text = s.lastText?.trim();
    return text ? text.split('\n') : [`${shortId(id)} has no assistant message yet`];
  }
  const viewer = await openPtyViewer(d.home, s.projectId, s.id, {}, d.env, { gridMs: 33 });
  try {
    return viewer.snapshot().lines;
  } finally {
    viewer.close();
  }
}

/** Type `text` into the prompt of the session's CLI in its PTY, then Enter. */
export async function replyInto(d: PeekReplyDeps, id: string, text: string): Promise<void> {
  const s = sessionOf(d, id);
  const who = shortId(s.id);
  const fg = liveRows(currentProcesses(d.db, s.id, 'claude'))[0];
  if (fg)
    throw new KlaudeError('E_SESSION_BUSY', `${who} is open in a klaude foreground (claude pid ${fg.pid})`, {
      hint: 'type there, or exit that claude first',
    });
  if (!liveRows(currentProcesses(d.db, s.id, 'pty'))[0])
    throw new KlaudeError('E_SESSION_BUSY', `${who} is not running in a PTY session any more`, {
      hint: 't starts it again; m on a headless agent sends it a message',
    });
  let drawn: () => void = () => undefined;
  const conn = await connectPty(
    ptySocketPath(d.home, s.projectId, s.id, d.env),
    {
      mode: 'control',
      size: { cols: 0, rows: 0 },
      history: 0,
      who: `a one-line reply from klaude ui (pid ${process.pid})`,
    },
    { onOutput: () => drawn() },
  );
  // Wait for the CLI's redraw after each step (the text in its prompt, then the prompt sent).
  const redraw = (): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, ECHO_WAIT_MS);
      drawn = () => {
        clearTimeout(t);
        drawn = () => undefined;
        resolve();
      };
    });
  try {
    let next = redraw();
    // Bracketed paste: the line arrives as one piece of text, whatever it holds.
    // Its own escapes (an end-of-paste among them) are not: only the words go in.
    conn.input(Buffer.from(`\x1b[200~${stripControls(text, { by: ' ' })}\x1b[201~`));
    await next;
    next = redraw();
    conn.input(Buffer.from('\r'));
    await next;
  } finally {
    conn.detach();
  }
}
