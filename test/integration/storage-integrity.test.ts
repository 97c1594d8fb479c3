// Storage integrity: a torn last log line is repaired before the next append; a DB from a newer
// klaude is refused (E_DB_TOO_NEW), by the library and by the built CLI.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, SCHEMA_VERSION } from '../../src/db/client.js';
import { openFastDb } from '../../src/db/fast.js';
import { isKlaudeError } from '../../src/lib/errors.js';
import { NdjsonDecoder } from '../../src/logs/reader.js';
import { openSessionLog } from '../../src/logs/writer.js';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

describe('session log writer', () => {
  it('repairs a torn last line before appending: the torn line is skipped and counted, the next event survives', () => {
    const h = (home = makeTempHome());
    const file = path.join(h.klaudeHome, 'logs', 's.ndjson');
    const w = openSessionLog(file);
    w.append({ type: 'text', text: 'one' });
    appendFileSync(file, '{"ts":1,"type":"text","te'); // a writer killed mid-line
    w.append({ type: 'text', text: 'two' });
    w.append({ type: 'text', text: 'three' });
    w.close();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(5); // one, torn, two, three, ''
    expect(lines[1]).toBe('{"ts":1,"type":"text","te');
    const decoder = new NdjsonDecoder();
    const texts = decoder.push(readFileSync(file)).map((l) => (l.event as { text?: string }).text);
    expect(texts).toEqual(['one', 'two', 'three']);
    expect(decoder.skipped).toBe(1);
    expect(decoder.pending).toBe(0);
  });
});

describe('a database from a newer klaude', () => {
  function bump(h: TempHome): void {
    const db = openDb(h.klaudeHome);
    db.sqlite.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
  }

  it('is refused by openDb and the hook fast path with E_DB_TOO_NEW', () => {
    const h = (home = makeTempHome());
    bump(h);
    for (const open of [() => openDb(h.klaudeHome), () => openFastDb(h.klaudeHome)]) {
      let err: unknown;
      try {
        open()?.close();
      } catch (e) {
        err = e;
      }
      expect(isKlaudeError(err) && err.code).toBe('E_DB_TOO_NEW');
      expect((err as Error).message).toMatch(/newer klaude \(schema \d+, this klaude knows \d+\)/);
    }
  });

  it('is refused by the CLI in one line with an upgrade hint, the file left as it was', async () => {
    const h = (home = makeTempHome());
    bump(h);
    const before = readFileSync(path.join(h.klaudeHome, 'sessions.db'));
    const r = await runKlaude(['sessions'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^klaude: the klaude database .* is from a newer klaude .*\[E_DB_TOO_NEW\].*hint: upgrade klaude/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(path.join(h.klaudeHome, 'sessions.db')).equals(before)).toBe(true);
  });
});
