// Drive any command under a real PTY and read its screen through @xterm/headless
// (the pattern of docs/cli-facts.md §5 "Real PTY e2e pattern" and §6).
import xterm from '@xterm/headless';
import * as pty from 'node-pty';

const { Terminal } = xterm;
type XTerminal = InstanceType<typeof Terminal>;

export interface SpawnPtyOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
  /** Scrollback lines kept by the headless terminal (default 1000). */
  scrollback?: number;
}

export interface WaitOptions {
  /** Default 30 000 ms. */
  timeoutMs?: number;
}

export type KeyName =
  | 'enter'
  | 'escape'
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'tab'
  | 'shift-tab'
  | 'backspace'
  | 'delete'
  | 'space'
  | 'ctrl-c'
  | 'ctrl-d'
  | 'ctrl-z'
  | 'ctrl-l'
  | 'ctrl-o'
  | 'ctrl-]'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end';

export interface PtyExit {
  exitCode: number;
  signal: number | undefined;
}

export interface PtySession {
  pid: number;
  cols: number;
  rows: number;
  /** Visible viewport, each line trimmed on the right (parsed state; see flush()). */
  lines(): string[];
  /** lines() joined with '\n'. */
  text(): string;
  /** Resolves once every byte received so far has been parsed into the screen. */
  flush(): Promise<void>;
  /** Resolves when the screen shows the text/regex; on timeout throws with the current screen. */
  waitForText(match: string | RegExp, opts?: WaitOptions): Promise<void>;
  /** Resolves when the screen no longer shows the text/regex. */
  waitForGone(match: string | RegExp, opts?: WaitOptions): Promise<void>;
  /** Resolves when pred(screen text) holds; `what` names the condition in the timeout error. */
  waitFor(pred: (screen: string) => boolean, what: string, opts?: WaitOptions): Promise<void>;
  /** Raw bytes to the child. */
  write(data: string): void;
  /** Text to the child (as typed; follow with press('enter') in a separate call). */
  type(text: string): void;
  press(key: KeyName): void;
  /** Resize PTY and screen; a no-op after exit (node-pty throws EBADF then). */
  resize(cols: number, rows: number): void;
  bufferType(): 'normal' | 'alternate';
  /** DECTCEM state as last set by the child (`ESC[?25l` hides, `ESC[?25h` shows). */
  cursorVisible(): boolean;
  /** Everything the child wrote, unparsed. */
  rawOutput(): string;
  readonly exited: Promise<PtyExit>;
  hasExited(): boolean;
  /** Signal the child (default SIGTERM); a no-op after exit. */
  kill(signal?: string): void;
  /** Kill if still running, wait for exit (bounded), dispose the terminal. Safe to call twice. */
  dispose(): Promise<void>;
}

function keySequence(key: KeyName, appCursor: boolean): string {
  const csiOrSs3 = (c: string) => (appCursor ? `\x1bO${c}` : `\x1b[${c}`);
  switch (key) {
    case 'enter':
      return '\r';
    case 'escape':
      return '\x1b';
    case 'up':
      return csiOrSs3('A');
    case 'down':
      return csiOrSs3('B');
    case 'right':
      return csiOrSs3('C');
    case 'left':
      return csiOrSs3('D');
    case 'home':
      return csiOrSs3('H');
    case 'end':
      return csiOrSs3('F');
    case 'tab':
      return '\t';
    case 'shift-tab':
      return '\x1b[Z';
    case 'backspace':
      return '\x7f';
    case 'delete':
      return '\x1b[3~';
    case 'space':
      return ' ';
    case 'ctrl-c':
      return '\x03';
    case 'ctrl-d':
      return '\x04';
    case 'ctrl-z':
      return '\x1a';
    case 'ctrl-l':
      return '\x0c';
    case 'ctrl-o':
      return '\x0f';
    case 'ctrl-]':
      return '\x1d';
    case 'pageup':
      return '\x1b[5~';
    case 'pagedown':
      return '\x1b[6~';
  }
}

function matches(screen: string, match: string | RegExp): boolean {
  return typeof match === 'string' ? screen.includes(match) : match.test(screen);
}

export function spawnPty(file: string, args: string[], opts: SpawnPtyOptions = {}): PtySession {
  let cols = opts.cols ?? 100;
  let rows = opts.rows ?? 30;
  const term: XTerminal = new Terminal({
    cols,
    rows,
    scrollback: opts.scrollback ?? 1000,
    allowProposedApi: true,
    logLevel: 'off',
  });
  const env = Object.fromEntries(
    Object.entries(opts.env ?? process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const child = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: opts.cwd ?? process.cwd(), env });

  let raw = '';
  let cursorShown = true;
  let exitedFlag = false;
  let disposed = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };

  // DECTCEM, seen by the parser (so it is in step with the screen, and split/combined sequences work).
  const onDecMode = (set: boolean) => (params: (number | number[])[]) => {
    if (params.some((p) => p === 25)) cursorShown = set;
    return false; // let xterm handle it too
  };
  term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, onDecMode(true));
  term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, onDecMode(false));

  // Answer terminal queries (DA, cursor position, …) like a real terminal would.
  term.onData((d) => {
    if (!exitedFlag) child.write(d);
  });

  child.onData((d) => {
    raw += d;
    if (!disposed) term.write(d, notify);
  });

  const exited = new Promise<PtyExit>((resolve) => {
    child.onExit(({ exitCode, signal }) => {
      exitedFlag = true;
      // Let the last output land on the screen before reporting the exit.
      const done = () => {
        notify();
        resolve({ exitCode, signal });
      };
      if (disposed) done();
      else term.write('', done);
    });
  });

  const lines = (): string[] => {
    const buf = term.buffer.active;
    const out: string[] = [];
    for (let y = buf.viewportY; y < buf.viewportY + term.rows; y++) {
      out.push(buf.getLine(y)?.translateToString(true) ?? '');
    }
    return out;
  };
  const text = () => lines().join('\n');

  const flush = () =>
    new Promise<void>((resolve) => {
      if (disposed) resolve();
      else term.write('', () => resolve());
    });

  const screenDump = () => `--- screen (${cols}x${rows}, ${term.buffer.active.type} buffer) ---\n${text()}\n---`;

  // Checked after every parsed chunk (write callback), never on a timer.
  const waitFor = async (pred: (screen: string) => boolean, what: string, wopts: WaitOptions = {}): Promise<void> => {
    const timeoutMs = wopts.timeoutMs ?? 30_000;
    await flush();
    if (pred(text())) return;
    await new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: Error) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        listeners.delete(check);
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (pred(text())) finish();
        else if (exitedFlag) {
          // The child is gone: once its last output is parsed the screen cannot change any more.
          void exited.then((ex) =>
            finish(
              pred(text())
                ? undefined
                : new Error(`pty: child exited (${JSON.stringify(ex)}) while waiting for ${what}\n${screenDump()}`),
            ),
          );
        }
      };
      const timer = setTimeout(
        () => finish(new Error(`pty: timed out after ${timeoutMs} ms waiting for ${what}\n${screenDump()}`)),
        timeoutMs,
      );
      listeners.add(check);
      check();
    });
  };

  const session: PtySession = {
    pid: child.pid,
    get cols() {
      return cols;
    },
    get rows() {
      return rows;
    },
    lines,
    text,
    flush,
    waitFor,
    waitForText: (match, wopts) => waitFor((s) => matches(s, match), `text ${String(match)}`, wopts),
    waitForGone: (match, wopts) => waitFor((s) => !matches(s, match), `text ${String(match)} to disappear`, wopts),
    write(data) {
      if (!exitedFlag) child.write(data);
    },
    type(t) {
      if (!exitedFlag) child.write(t);
    },
    press(key) {
      if (!exitedFlag) child.write(keySequence(key, term.modes.applicationCursorKeysMode));
    },
    resize(c, r) {
      if (exitedFlag) return;
      try {
        child.resize(c, r);
      } catch (err) {
        if (!/EBADF/.test(String(err))) throw err;
        return;
      }
      cols = c;
      rows = r;
      term.resize(c, r);
    },
    bufferType: () => term.buffer.active.type,
    cursorVisible: () => cursorShown,
    rawOutput: () => raw,
    exited,
    hasExited: () => exitedFlag,
    kill(signal = 'SIGTERM') {
      if (exitedFlag) return;
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
    },
    async dispose() {
      if (!exitedFlag) {
        session.kill('SIGTERM');
        const timedOut = await Promise.race([
          exited.then(() => false),
          new Promise<boolean>((r) => setTimeout(() => r(true), 5000)),
        ]);
        if (timedOut) {
          session.kill('SIGKILL');
          await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
        }
      }
      if (!disposed) {
        await flush();
        disposed = true;
        term.dispose();
      }
    },
  };
  return session;
}
