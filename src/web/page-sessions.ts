/**
 * The server's view of signed-in pages (ownership/web-sessions.ts keeps them on disk): a page's
 * cookie names its session; the record is read once and kept, and one stat per request says it
 * still stands (signed out elsewhere, `--rotate-token` removed it, or it was idle too long).
 */
import { statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import {
  createPageSession,
  endPageSession,
  pageSessionId,
  pageSessionsDir,
  readPageSession,
  type LinkOwner,
  type PageSession,
} from '../ownership/web-sessions.js';

/** Sessions read at most (each holds an environment); past this the oldest read is forgotten. */
const MAX_KEPT = 256;

/** A session's file is marked used (its mtime) at most this often: idle ones are pruned (web-sessions.ts). */
const MARK_USED_MS = 24 * 60 * 60 * 1000;

export class PageSessions {
  private kept = new Map<string, { s: PageSession; ino: number }>();

  constructor(private readonly home: string) {}

  /** The signed-in page this cookie belongs to, or null. */
  get(cookie: string): PageSession | null {
    if (!/^[A-Za-z0-9_-]{43}$/.test(cookie)) return null;
    const id = pageSessionId(cookie);
    const file = path.join(pageSessionsDir(this.home), `${id}.json`);
    let ino: number;
    try {
      const st = statSync(file);
      ino = st.ino;
      if (Date.now() - st.mtimeMs > MARK_USED_MS) utimesSync(file, st.atime, new Date());
    } catch {
      this.kept.delete(id);
      return null;
    }
    const k = this.kept.get(id);
    if (k && k.ino === ino) return k.s;
    const s = readPageSession(this.home, id);
    if (!s) return null;
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(id, { s, ino });
    return s;
  }

  /** Sign a page in; its cookie. */
  create(owner: LinkOwner, from: string): string {
    return createPageSession(this.home, owner, from);
  }

  end(cookie: string): void {
    const id = pageSessionId(cookie);
    this.kept.delete(id);
    endPageSession(this.home, id);
  }
}
