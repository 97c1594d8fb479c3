/** `klaude pin <id…> [--unpin] [--json]`: pinned sessions are listed first (sessions, the dashboard). */
import { klaudeHome } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { openDb } from '../../db/client.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { setSessionPinned } from '../../db/repos/session-marks.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const pinned = ctx.flags.unpin !== true;
  const db = openDb(klaudeHome(ctx.env));
  const ids: string[] = [];
  try {
    // Resolve every id before writing any: a typo leaves nothing half done.
    for (const input of ctx.input) ids.push(resolveSession(db, input).id);
    db.sqlite.transaction(() => {
      for (const id of ids) setSessionPinned(db, id, pinned);
    })();
  } finally {
    db.close();
  }
  if (ctx.flags.json === true) {
    ctx.stdout.write(`${JSON.stringify({ [pinned ? 'pinned' : 'unpinned']: ids })}\n`);
    return 0;
  }
  ctx.stdout.write(`${ids.map(shortId).join(', ')}: ${pinned ? 'pinned (listed first)' : 'unpinned'}\n`);
  return 0;
}
