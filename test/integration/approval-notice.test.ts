// The supervisor's terminal hears about agents' permission requests (bell / OSC 9, no text into
// claude's screen): a real DB file, a request added by another connection, the write observed.
import { afterEach, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { addApproval } from '../../src/db/repos/approvals.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { watchApprovalRequests } from '../../src/supervisor/approval-notice.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const PROJECT = 'a'.repeat(24);
let home: TempHome | undefined;
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  home?.cleanup();
});

async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('rings once per new request with the agent, tool and command; requests pending at start stay quiet', async () => {
  home = makeTempHome({ prefix: 'klaude-notice-' });
  const db = openDb(home.klaudeHome);
  const other = openDb(home.klaudeHome);
  dbs.push(db, other);
  ensureProject(db, { hash: PROJECT, rootPath: home.projectDir });
  const s = createSession(db, { projectId: PROJECT, type: 'coder', status: 'waiting' });
  addApproval(db, { sessionId: s.id, requestId: 'old', toolName: 'Bash', summary: 'ls -la /' });
  const writes: string[] = [];
  const stop = watchApprovalRequests({ db, projectId: PROJECT, mode: 'both', write: (x) => writes.push(x) });
  try {
    addApproval(other, { sessionId: s.id, requestId: 'new', toolName: 'Bash', summary: 'npm test' });
    await until(() => writes.length > 0, 'a notification');
    expect(writes).toEqual([`\x07\x1b]9;klaude: coder ${s.id.slice(-8)} needs approval: Bash: npm test\x07`]);
    // Later unrelated writes do not ring again.
    createSession(other, { projectId: PROJECT, type: 'general' });
    await new Promise((r) => setTimeout(r, 400));
    expect(writes).toHaveLength(1);
  } finally {
    stop();
  }
});
