// "A session needs you": the bell / OSC 9 go out once per transition into `waiting` (as the
// Notification hook sets it), the terminal title counts waiting sessions, and the dashboard's
// terminal path saves the person's title and puts it back. Also the preview crop.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import { cropRow, previewLines } from '../../src/ui/preview/crop.js';
import { BEL, POP_TITLE, PUSH_TITLE, titleSequence } from '../../src/lib/escapes.js';
import { WaitingNotifier, type NotifyMode } from '../../src/ui/notify.js';
import { TerminalScreen } from '../../src/ui/render/screen.js';

const P = 'p0000000000000000000000n';

class FakeOut extends EventEmitter {
  isTTY = true;
  data = '';
  write(s: string): boolean {
    this.data += s;
    return true;
  }
  take(): string {
    const d = this.data;
    this.data = '';
    return d;
  }
}
class FakeIn extends EventEmitter {
  isTTY = true;
  setRawMode(): this {
    return this;
  }
  pause(): this {
    return this;
  }
}

let db: Db | undefined;
let feed: SessionsFeed | undefined;
afterEach(() => {
  feed?.close();
  db?.close();
  feed = undefined;
  db = undefined;
});

function setup(mode: NotifyMode, inFront: () => string | null = () => null) {
  db = openMemoryDb();
  ensureProject(db, { hash: P, rootPath: '/tmp/p' });
  const a = createSession(db, { projectId: P, type: 'coder', runtime: 'claude', status: 'running' });
  const b = createSession(db, { projectId: P, type: 'tui', runtime: 'claude', status: 'waiting' });
  feed = new SessionsFeed({ db, projectId: P, frameMs: 0, watchFiles: false });
  const out = new FakeOut();
  const screen = new TerminalScreen(out as unknown as NodeJS.WriteStream, new FakeIn() as unknown as NodeJS.ReadStream);
  const notifier = new WaitingNotifier({
    source: feed,
    mode,
    write: (s) => out.write(s),
    setTitle: (t) => screen.setTitle(t),
    inFront,
  });
  const set = (id: string, status: 'running' | 'waiting' | 'idle' | 'done' | 'failed'): void => {
    updateSession(db!, id, { status });
    feed!.refresh();
  };
  return { a, b, out, screen, notifier, set };
}

/** BELs that are not an OSC terminator. */
const bells = (s: string): number => s.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '').split(BEL).length - 1;

describe('waiting notifications', () => {
  it('rings the bell once per transition into waiting, and keeps the count in the title', () => {
    const { a, b, out, screen, notifier, set } = setup('bell');
    screen.enter();
    out.take();
    notifier.start();
    // b was waiting already: counted, not rung.
    expect(out.take()).toBe(PUSH_TITLE + titleSequence('klaude (1 waiting)'));
    set(a.id, 'waiting');
    let o = out.take();
    expect(bells(o)).toBe(1);
    expect(o).toContain(titleSequence('klaude (2 waiting)'));
    expect(o).not.toContain('\x1b]9;');
    // Other changes while still waiting: no second ring.
    updateSession(db!, a.id, { title: 'still waiting' });
    feed!.refresh();
    expect(out.take()).toBe('');
    set(a.id, 'running');
    expect(out.take()).toBe(titleSequence('klaude (1 waiting)'));
    set(a.id, 'waiting'); // a new transition rings again
    expect(bells(out.take())).toBe(1);
    set(a.id, 'idle');
    set(b.id, 'idle');
    expect(out.take()).toBe(titleSequence('klaude (1 waiting)') + titleSequence('klaude'));
    expect(notifier.rung).toBe(2);
    // Leaving puts the person's title back (pop; an empty title where the stack is unsupported).
    screen.leave();
    expect(out.take().startsWith(titleSequence('') + POP_TITLE)).toBe(true);
    notifier.stop();
  });

  it('osc9 / both / none, and no ring for the session the person is in', () => {
    let r = setup('osc9');
    r.notifier.start();
    r.out.take();
    r.set(r.a.id, 'waiting');
    let o = r.out.take();
    expect(o).toMatch(/^\x1b\]9;klaude: coder \w{8} needs you\x07$/);
    expect(bells(o)).toBe(0);
    r.notifier.stop();
    feed!.close();
    db!.close();

    r = setup('both');
    r.notifier.start();
    r.set(r.a.id, 'waiting');
    o = r.out.take();
    expect(bells(o)).toBe(1);
    expect(o).toContain('\x1b]9;klaude: coder');
    r.notifier.stop();
    feed!.close();
    db!.close();

    r = setup('none');
    r.notifier.start();
    r.set(r.a.id, 'waiting');
    expect(r.out.take()).toBe(''); // the title is only written while the dashboard shows
    r.screen.enter();
    expect(r.out.take()).toContain(titleSequence('klaude (2 waiting)'));
    r.notifier.stop();
    feed!.close();
    db!.close();

    let front: string | null = null;
    r = setup('bell', () => front);
    r.notifier.start();
    front = r.a.id;
    r.set(r.a.id, 'waiting');
    expect(bells(r.out.take())).toBe(0);
    r.notifier.stop();
  });
});

describe('finish notifications', () => {
  it('rings once when a sub-agent finishes, per ui.notify, not for interactive sessions or the one in front', () => {
    let r = setup('osc9');
    r.notifier.start();
    r.out.take();
    r.set(r.a.id, 'done');
    expect(r.out.take()).toMatch(/^\x1b\]9;klaude: coder \w{8} finished: done\x07$/);
    r.set(r.a.id, 'done'); // no second ring for the same ending
    expect(r.out.take()).toBe('');
    r.set(r.b.id, 'idle'); // the interactive claude going idle is not "finished"
    expect(r.out.take()).not.toContain('\x1b]9;');
    r.notifier.stop();
    feed!.close();
    db!.close();

    r = setup('bell');
    r.notifier.start();
    r.out.take();
    r.set(r.a.id, 'failed');
    expect(bells(r.out.take())).toBe(1);
    r.notifier.stop();
    feed!.close();
    db!.close();

    r = setup('bell', () => r.a.id);
    r.notifier.start();
    r.out.take();
    r.set(r.a.id, 'done');
    expect(bells(r.out.take())).toBe(0);
    r.notifier.stop();
  });
});

describe('preview crop', () => {
  it('keeps the bottom rows (cursor and last content) and the left cells, SGR kept and reset', () => {
    const lines = ['top', 'a', 'b', 'c', 'prompt', 'status', '', ''];
    const screen = { lines, ansiLines: lines.map((l) => (l ? `\x1b[0;1m${l}\x1b[0m` : '')), cursor: { x: 0, y: 4 } };
    expect(previewLines(screen, 10, 3, false)).toEqual(['c', 'prompt', 'status']);
    expect(previewLines({ ...screen, cursor: { x: 0, y: 7 } }, 10, 2, false)).toEqual(['', '']);
    expect(previewLines(screen, 10, 20, false)).toEqual(['top', 'a', 'b', 'c', 'prompt', 'status']);
    expect(previewLines(screen, 3, 1, true)).toEqual(['\x1b[0;1msta\x1b[0m']);
    expect(cropRow('ab界cd', 3)).toBe('ab');
    expect(cropRow('x\x1b]0;t\x07y\x01z', 5)).toBe('xyz');
  });
});
