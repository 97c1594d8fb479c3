// The conversation claim (session_claims): one IMMEDIATE transaction with the taker's own checks;
// a live holder refuses others (E_SESSION_BUSY naming it), a dead holder's claim is void.
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryDb, type Db } from '../../src/db/client.js';
import { getClaim, releaseClaim, takeClaim } from '../../src/db/repos/claims.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { processStartTime } from '../../src/lib/process.js';
import {
  claimConversation,
  claimedByOther,
  holderAlive,
  releaseConversation,
} from '../../src/ownership/conversation-claim.js';

let db: Db;
let sid: string;
beforeEach(() => {
  db = openMemoryDb();
  ensureProject(db, { hash: 'p'.repeat(24), rootPath: '/p' });
  sid = createSession(db, { projectId: 'p'.repeat(24), type: 'general', status: 'done' }).id;
});
afterEach(() => db.close());

const deadPid = (): number => spawnSync('true').pid!;

describe('conversation claims', () => {
  it('a second taker gets E_SESSION_BUSY naming the live holder; the holder re-takes its own; release frees it', () => {
    claimConversation(db, sid, 'a checkout in klaude X');
    expect(() => claimConversation(db, sid, 'a resume by klaude message')).toThrow(
      expect.objectContaining({
        code: 'E_SESSION_BUSY',
        message: expect.stringMatching(/is taken by a checkout in klaude X \(pid \d+\)$/),
      }),
    );
    claimConversation(db, sid, 'a checkout in klaude X'); // same process, same purpose
    releaseConversation(db, sid, 'a resume by klaude message'); // not that one's to release
    expect(getClaim(db, sid)).toBeDefined();
    releaseConversation(db, sid, 'a checkout in klaude X');
    expect(getClaim(db, sid)).toBeUndefined();
    claimConversation(db, sid, 'a resume by klaude message');
  });

  it('a claim whose holder is gone (or whose pid now names another process) is void', () => {
    const pid = deadPid();
    expect(takeClaim(db, sid, { holder: 'a checkout (pid gone)', pid, start: 1 }, holderAlive)).toBeNull();
    expect(claimedByOther(db, sid)).toBeNull();
    claimConversation(db, sid, 'a resume by klaude message'); // taken over
    expect(getClaim(db, sid)).toMatchObject({ holderPid: process.pid });
    // Our own pid with another start time: a reused pid, not the holder.
    releaseClaim(db, sid, { pid: process.pid, holder: `a resume by klaude message (pid ${process.pid})` });
    if (process.platform === 'linux') {
      takeClaim(
        db,
        sid,
        { holder: 'someone (reused pid)', pid: process.pid, start: processStartTime(process.pid)! + 1 },
        holderAlive,
      );
      expect(claimedByOther(db, sid, -1)).toBeNull(); // our pid is skipped by design; a wrong start is void anyway
      expect(holderAlive(process.pid, processStartTime(process.pid)! + 1)).toBe(false);
    }
  });

  it('the check runs inside the transaction: when it throws, nothing is claimed', () => {
    expect(() =>
      claimConversation(db, sid, 'a checkout', () => {
        throw new Error('target is open elsewhere');
      }),
    ).toThrow('target is open elsewhere');
    expect(getClaim(db, sid)).toBeUndefined();
  });
});
