// `klaude web`'s streams resume: a page that reconnects with the last event id it saw gets only
// what was written meanwhile — from the session log and from Claude's transcripts alike, however a
// `/resume` reordered them — with no `reset` and none of the history again; and the live state
// comes again from a server that restarted.
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectHash, sessionLogPath } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { endClaudeLink, linkClaudeSession } from '../../src/db/repos/links.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { restartWeb, signIn, startWeb } from '../support/web-client.js';

const homes: TempHome[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) {
    await runKlaude(['web', '--stop'], { env: h.env, cwd: h.projectDir });
    h.cleanup();
  }
});

const logLine = (text: string): string => `${JSON.stringify({ ts: Date.now(), type: 'text', text })}\n`;
const typed = (text: string): string =>
  `${JSON.stringify({ type: 'user', timestamp: new Date().toISOString(), message: { role: 'user', content: text } })}\n`;

/** A session with a log and an interactive turn in a Claude transcript. */
function seed(home: TempHome): { id: string; log: string; transcript: string } {
  const db = openDb(home.klaudeHome);
  try {
    const hash = projectHash(home.projectDir);
    ensureProject(db, { hash, rootPath: home.projectDir });
    const s = createSession(db, { projectId: hash, type: 'general', runtime: 'claude', status: 'idle', prompt: 'p' });
    const transcript = join(home.home, '.claude', 'projects', 'x', `${randomUUID()}.jsonl`);
    mkdirSync(dirname(transcript), { recursive: true });
    linkClaudeSession(db, {
      klaudeSessionId: s.id,
      claudeSessionId: randomUUID(),
      source: 'interactive',
      transcriptPath: transcript,
    });
    const log = sessionLogPath(home.klaudeHome, hash, s.id, null);
    mkdirSync(dirname(log), { recursive: true });
    appendFileSync(log, logLine('log one'));
    appendFileSync(transcript, typed('typed one'));
    return { id: s.id, log, transcript };
  } finally {
    db.close();
  }
}

interface Read {
  text: string;
  /** The id of the last event carrying one. */
  lastId: string;
}

/** Read a log stream until `until` shows in it, then hang up (as a page whose connection drops). */
function readStream(
  port: number,
  path: string,
  headers: Record<string, string>,
  until: string,
  onHistoryEnd?: () => void,
): Promise<Read> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          const before = text;
          text += c;
          if (onHistoryEnd && !before.includes('history-end') && text.includes('history-end')) onHistoryEnd();
          if (!text.includes(until)) return;
          const ids = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]!);
          resolve({ text, lastId: ids.at(-1) ?? '' });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('klaude web: the log stream resumes', () => {
  it('a reconnect with Last-Event-ID gets only what was written meanwhile, log and transcript', async () => {
    const home = makeTempHome({ prefix: 'klaude-webresume-' });
    homes.push(home);
    const s = seed(home);
    const w = await startWeb(home.env, home.projectDir);
    const cookie = await signIn(w);
    const headers = { cookie, origin: w.origin };
    const path = `/api/sessions/${s.id}/log`;

    const first = await readStream(w.port, path, headers, 'event: history-end');
    expect(first.text).toContain('event: reset');
    expect(first.text).toContain('log one');
    expect(first.text).toContain('typed one');
    expect(first.lastId).toMatch(/^[0-9]+\.[0-9a-f]{12}:[0-9]+$/);

    // Dropped; meanwhile the log and the transcript grow.
    appendFileSync(s.log, logLine('log two'));
    appendFileSync(s.transcript, typed('typed two'));
    const again = await readStream(w.port, path, { ...headers, 'last-event-id': first.lastId }, 'event: history-end');
    expect(again.text).not.toContain('event: reset');
    expect(again.text).toContain('log two');
    expect(again.text).toContain('typed two');
    expect(again.text).not.toContain('log one');
    expect(again.text).not.toContain('typed one');

    // Live events carry the cursor past them: a reconnect after one of them repeats nothing.
    const l = await readStream(w.port, path, { ...headers, 'last-event-id': again.lastId }, 'typed three', () =>
      appendFileSync(s.transcript, typed('typed three')),
    );
    expect(l.lastId).toMatch(/^[0-9]+\.[0-9a-f]{12}:[0-9]+$/);
    expect(l.text).not.toContain('two');
    const after = await readStream(w.port, path, { ...headers, 'last-event-id': l.lastId }, 'event: history-end');
    expect(after.text).not.toContain('event: event');
  });
});

/** A session whose conversation moved between two Claude sessions: A, then B, then back to A. */
function seedTwo(home: TempHome): { id: string; a: string; b: string; resumeA: () => void } {
  const db = openDb(home.klaudeHome);
  try {
    const hash = projectHash(home.projectDir);
    ensureProject(db, { hash, rootPath: home.projectDir });
    const s = createSession(db, { projectId: hash, type: 'tui', status: 'idle', prompt: 'p' });
    const dir = join(home.home, '.claude', 'projects', 'x');
    mkdirSync(dir, { recursive: true });
    const [ida, idb] = [randomUUID(), randomUUID()];
    const [a, b] = [join(dir, `${ida}.jsonl`), join(dir, `${idb}.jsonl`)];
    // Lines of one length (same text length, ISO times): an offset of B's lands on a line of A's.
    appendFileSync(a, typed('typed A1') + typed('typed A2'));
    appendFileSync(b, typed('typed B1'));
    const link = (on: typeof db, claude: string, transcriptPath: string) =>
      linkClaudeSession(on, { klaudeSessionId: s.id, claudeSessionId: claude, source: 'interactive', transcriptPath });
    link(db, ida, a);
    link(db, idb, b);
    return {
      id: s.id,
      a,
      b,
      // `/resume` of A: its link reopens as the newest (started_at bumped), so the list is B, A.
      resumeA: () => {
        const again = openDb(home.klaudeHome);
        try {
          const t = Date.now();
          while (Date.now() === t) {
            /* the next millisecond: started_at orders the list */
          }
          endClaudeLink(again, idb, 'resume');
          link(again, ida, a);
        } finally {
          again.close();
        }
      },
    };
  } finally {
    db.close();
  }
}

describe('klaude web: resuming across a reorder and a restart', () => {
  it('the log cursor names transcripts, not their places: a /resume that reorders them repeats nothing', async () => {
    const home = makeTempHome({ prefix: 'klaude-webresume-' });
    homes.push(home);
    const s = seedTwo(home);
    const w = await startWeb(home.env, home.projectDir);
    const headers = { cookie: await signIn(w), origin: w.origin };
    const path = `/api/sessions/${s.id}/log`;
    const first = await readStream(w.port, path, headers, 'event: history-end');
    for (const t of ['typed A1', 'typed A2', 'typed B1']) expect(first.text).toContain(t);

    s.resumeA();
    appendFileSync(s.a, typed('typed A3'));
    const again = await readStream(w.port, path, { ...headers, 'last-event-id': first.lastId }, 'event: history-end');
    expect(again.text).toContain('typed A3');
    for (const t of ['typed A1', 'typed A2', 'typed B1']) expect(again.text).not.toContain(t);
  });

  it('a page that reconnects to a restarted server gets the live state again', async () => {
    const home = makeTempHome({ prefix: 'klaude-webresume-' });
    homes.push(home);
    seed(home);
    let w = await startWeb(home.env, home.projectDir);
    const headers = { cookie: await signIn(w), origin: w.origin };
    const state = await readStream(w.port, '/api/events', headers, 'event: state');
    expect(state.lastId).not.toBe('');

    w = await restartWeb(w, home.env, home.projectDir);
    const after = await readStream(
      w.port,
      '/api/events',
      { ...headers, 'last-event-id': state.lastId },
      'event: state',
    );
    expect(after.text).toContain('"projects"');
  });
});
