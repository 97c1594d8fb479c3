/** `klaude rename <id> "<title>" [--json]`: the title a session is listed by ('' gives the prompt back). */
import { klaudeHome } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { cleanName } from '../../core/session-title.js';
import { openDb } from '../../db/client.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { setSessionName } from '../../db/repos/session-marks.js';
import { safeText } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const [input, title] = ctx.input as [string, string];
  const name = cleanName(title) || null;
  const db = openDb(klaudeHome(ctx.env));
  let id: string;
  try {
    // Any project of this home: a row seen in `klaude sessions --projects` can be renamed from anywhere.
    id = resolveSession(db, input).id;
    setSessionName(db, id, name);
  } finally {
    db.close();
  }
  if (ctx.flags.json === true) {
    ctx.stdout.write(`${JSON.stringify({ id, name })}\n`);
    return 0;
  }
  ctx.stdout.write(
    name === null ? `${shortId(id)}: title cleared (listed by its prompt)\n` : `${shortId(id)}: "${safeText(name)}"\n`,
  );
  return 0;
}
