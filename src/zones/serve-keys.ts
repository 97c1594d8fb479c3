/**
 * "Delivered once" for messages carried over a zone link (docs/zones.md): each carries a key made
 * on the person's machine; the serve end records the key before delivering and the delivery's
 * result after, in `<home>/zones/keys/<key>` (0600). A message sent again after a dropped link —
 * its answer lost on the way back — finds its key and gets the first delivery's result instead of
 * a second delivery. Keys older than KEEP_MS are removed by a later serve.
 */
import { closeSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { sleep } from '../lib/process.js';
import { KlaudeError } from '../lib/errors.js';

const KEEP_MS = 7 * 24 * 3600_000;
const KEY = /^[A-Za-z0-9_-]{8,64}$/;
/** How long a resend waits for a delivery still in progress (another serve of a dropped link). */
const IN_FLIGHT_WAIT_MS = 20_000;

const dirOf = (home: string): string => path.join(home, 'zones', 'keys');

type Entry = { state: 'pending'; at: number } | { state: 'done'; at: number; result: unknown };

function read(file: string): Entry | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Entry;
  } catch {
    return null;
  }
}

/**
 * Run `deliver` once per key: the first caller delivers (a failure frees the key: nothing was
 * delivered); a later one gets the recorded result, waiting for one still in progress.
 */
export async function onceByKey<R>(home: string, key: string, deliver: () => Promise<R>): Promise<R> {
  if (!KEY.test(key)) throw new KlaudeError('E_BAD_REQUEST', 'a message key must be 8–64 letters, digits, _ or -');
  const file = path.join(ensurePrivateDir(dirOf(home)), key);
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return waitForResult<R>(file);
  }
  try {
    writeSync(fd, JSON.stringify({ state: 'pending', at: Date.now() } satisfies Entry));
  } finally {
    closeSync(fd);
  }
  let result: R;
  try {
    result = await deliver();
  } catch (e) {
    rmSync(file, { force: true });
    throw e;
  }
  writeFileSync(file, JSON.stringify({ state: 'done', at: Date.now(), result } satisfies Entry), { mode: 0o600 });
  return result;
}

async function waitForResult<R>(file: string): Promise<R> {
  const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
  for (;;) {
    const e = read(file);
    if (e?.state === 'done') return e.result as R;
    if (Date.now() > deadline)
      throw new KlaudeError('E_SESSION_BUSY', 'this message is still being delivered by an earlier link', {
        hint: 'it is sent again when the link next connects; it is delivered once',
      });
    await sleep(100);
  }
}

/** Remove keys older than a week (never throws). */
export function pruneKeys(home: string, now = Date.now()): void {
  try {
    const dir = dirOf(home);
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (now - statSync(file).mtimeMs > KEEP_MS) rmSync(file, { force: true });
    }
  } catch {
    /* no keys yet */
  }
}
