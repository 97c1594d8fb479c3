/**
 * Watching one file's path for the log follower (follow.ts), with file-system notifications only:
 * the file is watched while it exists; until then (and after it is deleted or replaced) its
 * directory is watched, or the nearest existing ancestor when the directory does not exist yet.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { KlaudeError } from '../lib/errors.js';

export interface PathWatchEvents {
  /** The file may have changed: appended to, truncated, replaced, created or deleted. */
  change(): void;
  /** Watching is impossible; the watcher is of no more use. */
  fail(e: KlaudeError): void;
}

export class PathWatcher {
  private readonly dir: string;
  private readonly base: string;
  private closed = false;
  private fileWatcher: FSWatcher | undefined;
  private dirWatcher: { watcher: FSWatcher; dir: string } | undefined;

  constructor(
    readonly target: string,
    private readonly on: PathWatchEvents,
  ) {
    this.dir = path.dirname(target);
    this.base = path.basename(target);
  }

  /** Start watching (the file, else its directory); reports one change once in place. */
  start(): void {
    this.armFile();
  }

  close(): void {
    this.closed = true;
    this.fileWatcher?.close();
    this.fileWatcher = undefined;
    this.closeDir();
  }

  private closeDir(): void {
    this.dirWatcher?.watcher.close();
    this.dirWatcher = undefined;
  }

  private watchError(e: unknown): KlaudeError {
    return new KlaudeError('E_IO', `cannot watch ${this.target}: ${(e as Error).message}`, {
      hint: 'the system may be out of file watches (fs.inotify.max_user_watches)',
      cause: e,
    });
  }

  /** Watch the file itself; falls back to its directory when it does not exist. */
  private armFile(): void {
    if (this.closed || this.fileWatcher) return;
    let w: FSWatcher;
    try {
      w = watch(this.target, { persistent: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        this.armDir();
        return;
      }
      this.on.fail(this.watchError(e));
      return;
    }
    this.fileWatcher = w;
    w.on('change', (type) => {
      this.on.change();
      if (type === 'rename') this.rearm(w); // deleted, renamed away, or replaced
    });
    w.on('error', () => this.rearm(w));
    this.closeDir();
    this.on.change(); // it may have grown between the last read and the watch
  }

  private rearm(w: FSWatcher): void {
    if (this.fileWatcher !== w) return;
    w.close();
    this.fileWatcher = undefined;
    this.armFile();
  }

  /** Watch the file's directory (or its nearest existing ancestor) until the file appears. */
  private armDir(): void {
    if (this.closed) return;
    let d = this.dir;
    for (;;) {
      try {
        this.watchDir(d);
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const parent = path.dirname(d);
        if ((code === 'ENOENT' || code === 'ENOTDIR') && parent !== d) {
          d = parent;
          continue;
        }
        this.on.fail(this.watchError(e));
        return;
      }
    }
    // The file (or a deeper directory) may have appeared before the watch was in place.
    this.onDirEvent();
  }

  /** Watch directory `d` in place of the directory watched so far; throws when it cannot. */
  private watchDir(d: string): void {
    const w = watch(d, { persistent: true });
    this.dirWatcher?.watcher.close();
    this.dirWatcher = { watcher: w, dir: d };
    w.on('change', (_type, name) => {
      if (this.dirWatcher?.watcher !== w) return;
      const n = name == null ? null : String(name);
      if (d === this.dir ? n === null || n === this.base : true) this.onDirEvent();
    });
    w.on('error', () => {
      if (this.dirWatcher?.watcher !== w) return;
      w.close();
      this.dirWatcher = undefined;
      this.armDir();
    });
  }

  /** The file's directory, or its nearest existing ancestor. */
  private async deepestExisting(): Promise<string> {
    let d = this.dir;
    for (;;) {
      try {
        await stat(d);
        return d;
      } catch {
        const parent = path.dirname(d);
        if (parent === d) return d;
        d = parent;
      }
    }
  }

  private onDirEvent(): void {
    if (this.closed || this.fileWatcher) return;
    // Runs beside the watcher callback that started it; a failure to watch ends in fail().
    void (async () => {
      try {
        await stat(this.target);
        this.armFile();
        return;
      } catch {
        /* still missing */
      }
      try {
        // Watching an ancestor: move down as soon as a deeper level exists (watches are not recursive).
        if (!this.dirWatcher || this.dirWatcher.dir === this.dir) return;
        const d = await this.deepestExisting();
        if (!this.closed && !this.fileWatcher && this.dirWatcher && d !== this.dirWatcher.dir) this.armDir();
      } catch (e) {
        this.on.fail(this.watchError(e));
      }
    })();
  }
}
