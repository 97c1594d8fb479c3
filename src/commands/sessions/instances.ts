import { klaudeHome, projectHash, projectRoot } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { openDb } from '../../db/client.js';
import { listInstances } from '../../db/repos/instances.js';
import { age, table } from '../../lib/format.js';
import { reconcile } from '../../ownership/reconcile.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const db = openDb(home);
  try {
    reconcile(db, { projectId: hash });
    const rows = listInstances(db, { projectId: hash, ...(ctx.flags.all ? {} : { status: 'running' as const }) });
    if (ctx.flags.json) {
      ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    if (rows.length === 0) {
      ctx.stdout.write(
        ctx.flags.all
          ? 'no klaude has run in this project\n'
          : 'no klaude running in this project (--all shows past ones)\n',
      );
      return 0;
    }
    const out = [['INSTANCE', 'STATUS', 'PID', 'MODE', 'STARTED', 'ROOT', 'SOCKET']];
    for (const i of rows) {
      out.push([
        shortId(i.id),
        i.status,
        String(i.pid),
        i.mode,
        `${age(i.startedAt)} ago`,
        i.rootSessionId ? shortId(i.rootSessionId) : '-',
        i.status === 'running' ? i.socketPath : '-',
      ]);
    }
    ctx.stdout.write(table(out));
    return 0;
  } finally {
    db.close();
  }
}
