/**
 * Messages to a zone's agents waiting for the link (docs/zones.md "Delivered once"): each is a
 * file `<home>/zones/<zone>/outbox/<time>-<key>.json` (0600) from the moment the link takes it
 * until the zone has answered for it, so neither a dropped link nor a link that dies loses one.
 * The key goes with the message; the zone delivers a key once (serve-keys.ts), so sending one
 * again after a lost answer delivers nothing twice. Sent in the order they came.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { newId } from '../db/ids.js';
import { KlaudeError } from '../lib/errors.js';
import { zoneStateDir } from '../zone-client/paths.js';

export interface Held {
  key: string;
  sid: string;
  prompt: string;
  /** When this machine took it (epoch ms). */
  at: number;
}

export class Outbox {
  private readonly dir: string;

  constructor(home: string, zone: string) {
    this.dir = path.join(zoneStateDir(home, zone), 'outbox');
  }

  /**
   * Keep a new message; written (and renamed into place) before anyone is told it was taken. `key`:
   * the caller's, so a request sent again (its link died after taking it) is kept once.
   */
  add(sid: string, prompt: string, key?: string): Held {
    if (key !== undefined && !/^[A-Za-z0-9_-]{8,64}$/.test(key))
      throw new KlaudeError('E_BAD_REQUEST', 'a message key must be 8–64 letters, digits, _ or -');
    ensurePrivateDir(this.dir);
    const had = key ? this.list().find((h) => h.key === key) : undefined;
    if (had) return had;
    const held: Held = { key: key ?? newId(), sid, prompt, at: Date.now() };
    const file = path.join(this.dir, `${String(held.at).padStart(15, '0')}-${held.key}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(held), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
    return held;
  }

  /** Every message waiting, oldest first. */
  list(): Held[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: Held[] = [];
    for (const n of names.sort()) {
      try {
        out.push(JSON.parse(readFileSync(path.join(this.dir, n), 'utf8')) as Held);
      } catch {
        /* removed meanwhile */
      }
    }
    return out;
  }

  get size(): number {
    return this.list().length;
  }

  /** The zone answered for it (delivered, or refused for good). */
  remove(h: Held): void {
    rmSync(path.join(this.dir, `${String(h.at).padStart(15, '0')}-${h.key}.json`), { force: true });
  }
}
