/**
 * The server's view of signed-in pages (ownership/web-sessions.ts keeps them on disk): a page's
 * cookie names its session; the record is read once and kept, and one stat per request says it
 * still stands (signed out elsewhere, or `--rotate-token` removed it).
 */
import { statSync } from 'node:fs';
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

export class PageSessions {
  private kept = new Map<string, { s: PageSession; ino: number }>();

  constructor(private readonly home: string) {}

  /** The signed-in page this cookie belongs to, or null. */
  get(cookie: string): PageSession | null {
    if (!/^[A-Za-z0-9_-]{43}$/.test(cookie)) return null;
    const id = pageSessionId(cookie);
    let ino: number;
    try {
      ino = statSync(path.join(pageSessionsDir(this.home), `${id}.json`)).ino;
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
