/**
 * A PTY session's live terminal (xterm.js, loaded with this view), over the server's WebSocket
 * (web/terminal.ts). View-only until "Take over": then keys go to the CLI and the terminal's size
 * is the page's; "Release" hands it back. A session held elsewhere is refused with the holder
 * named. xterm answers the CLI's terminal queries itself: those go out only while taken over.
 *
 * A dropped socket comes back by itself (terminal-socket.ts says when), showing the last screen
 * dimmed meanwhile, and always view-only: another page or terminal may have taken the session in
 * between, so a take-over is never restored behind the person's back.
 */
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { api, RequestFailed } from './api.js';
import { stampStyleNonce } from './style-nonce.js';
import { TerminalLink, type LinkState, type PageSignals, type SocketLike } from './terminal-socket.js';
import { Rich } from './rich-text.js';

type Mode = 'connecting' | 'view' | 'control' | 'reconnecting' | 'ended' | 'signed-out';

type FromServer =
  | { t: 'screen'; cols: number; rows: number; mode: 'view' | 'control' }
  | { t: 'resized'; cols: number; rows: number }
  | { t: 'refused'; code: string; message: string; hint?: string }
  | { t: 'exit'; exitCode: number | null; signal: number | null };

interface Live {
  link: TerminalLink;
  term: Terminal;
  fit: FitAddon;
  mode: Mode;
}

interface Show {
  setMode: (m: Mode) => void;
  setNote: (n: string | null | ((cur: string | null) => string | null)) => void;
  setAttempt: (n: number) => void;
  /** The PTY's columns are wider than the box even at the smallest font: it scrolls sideways. */
  setWide: (wide: boolean) => void;
}

/** Fonts that carry box drawing and Claude Code's ⎿ (U+23BF) on Debian, macOS/iOS, Windows and Android. */
export const TERM_FONTS = [
  '"DejaVu Sans Mono"',
  'Menlo',
  '"SF Mono"',
  'Consolas',
  '"Cascadia Mono"',
  '"Liberation Mono"',
  '"Noto Sans Mono"',
  '"Droid Sans Mono"',
  'monospace',
  '"Noto Sans Symbols"',
  '"Noto Sans Symbols 2"',
  '"Noto Sans Math"',
  '"Apple Symbols"',
  '"Segoe UI Symbol"',
  'Symbola',
].join(', ');
const FONT_PX = 13;
/** Below this a phone's screen is unreadable: the terminal scrolls sideways instead. */
const MIN_FONT_PX = 7;
/** Leaves a taken-over terminal for the page, as `klaude talk` detaches with Ctrl-]. */
export const LEAVE_KEY = 'Ctrl-]';

const DROPPED = 'control released: the connection dropped — Take over to type again';
const SIGNED_OUT = 'signed out: sign in again with a link `klaude web` prints';

const pageSignals: PageSignals = {
  parked: () => document.hidden || !navigator.onLine,
  watch: (fn) => {
    document.addEventListener('visibilitychange', fn);
    window.addEventListener('online', fn);
    window.addEventListener('offline', fn);
    return () => {
      document.removeEventListener('visibilitychange', fn);
      window.removeEventListener('online', fn);
      window.removeEventListener('offline', fn);
    };
  },
};

/** Only a 401 means signed out: no answer at all is the server being down. */
const signedOut = (): Promise<boolean> =>
  api.get('/api/me').then(
    () => false,
    (e: unknown) => e instanceof RequestFailed && e.status === 401,
  );

/** View-only, the PTY's columns are someone else's: shrink the font until they fit the box (down to a minimum). */
function scaleToFit(live: Live, show: Show): void {
  const { term } = live;
  const box = term.element?.parentElement;
  const screen = term.element?.querySelector<HTMLElement>('.xterm-screen');
  if (!box || !screen) return;
  const want = live.mode === 'control' ? FONT_PX : fitFont(term.options.fontSize ?? FONT_PX, screen, box);
  if (want !== term.options.fontSize) term.options.fontSize = want;
  // Measured a frame later, once xterm has drawn at the new size.
  requestAnimationFrame(() => show.setWide(box.scrollWidth > box.clientWidth + 1));
}

function fitFont(cur: number, screen: HTMLElement, box: HTMLElement): number {
  const room = box.clientWidth - 10;
  const width = screen.getBoundingClientRect().width;
  if (width <= 0 || room <= 0) return cur;
  const scaled = Math.floor(((cur * room) / width) * 2) / 2;
  return Math.max(MIN_FONT_PX, Math.min(FONT_PX, scaled));
}

function onServer(live: Live, m: FromServer, show: Show): void {
  const { term } = live;
  switch (m.t) {
    case 'screen':
      term.reset();
      term.resize(m.cols, m.rows);
      live.mode = m.mode;
      show.setMode(m.mode);
      requestAnimationFrame(() => scaleToFit(live, show));
      if (m.mode === 'control') {
        show.setNote(null);
        term.focus();
      }
      return;
    case 'resized':
      if (live.mode !== 'view') return;
      term.resize(m.cols, m.rows);
      requestAnimationFrame(() => scaleToFit(live, show));
      return;
    case 'refused':
      show.setNote(`${m.message}${m.hint ? ` — ${m.hint}` : ''} [${m.code}]`);
      return;
    case 'exit':
      show.setNote(`the session's CLI exited (${m.signal ? `signal ${m.signal}` : `code ${m.exitCode}`})`);
      return;
  }
}

function onLink(live: Live, s: LinkState, show: Show): void {
  const set = (m: Mode): void => ((live.mode = m), show.setMode(m));
  switch (s.k) {
    case 'open':
      // The mode comes with the screen, the server's first frame.
      return;
    case 'connecting':
    case 'down':
      if (s.k === 'connecting' && s.attempt === 0) return set('connecting');
      if (live.mode === 'control') show.setNote(DROPPED);
      show.setAttempt(s.attempt);
      return set('reconnecting');
    case 'closed':
      if (s.why === 'signed-out') show.setNote(SIGNED_OUT);
      else if (s.why === 'gone') show.setNote((n) => n ?? "the session's terminal is gone");
      return set(s.why === 'signed-out' ? 'signed-out' : 'ended');
  }
}

function connect(id: string, box: HTMLDivElement, show: Show, leave: () => void): Live {
  stampStyleNonce();
  const term = new Terminal({
    fontSize: FONT_PX,
    fontFamily: TERM_FONTS,
    scrollback: 1000,
    theme: { background: '#0f1115' },
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(box);
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/sessions/${id}/terminal`;
  const live: Live = { link: null as unknown as TerminalLink, term, fit, mode: 'connecting' };
  live.link = new TerminalLink({
    // The browser's WebSocket is a SocketLike whose handlers take richer events than the link reads.
    open: () => new WebSocket(url) as unknown as SocketLike,
    onMessage: (data) => {
      if (typeof data !== 'string') term.write(new Uint8Array(data as ArrayBuffer));
      else onServer(live, JSON.parse(data) as FromServer, show);
    },
    onState: (s) => onLink(live, s, show),
    signedOut,
    page: pageSignals,
  });
  // Keys (and xterm's answers to the CLI's queries) go out only while this page holds the session.
  term.onData((d) => {
    if (live.mode === 'control') live.link.send(JSON.stringify({ t: 'in', d }));
  });
  // Ctrl-] is the way out: xterm keeps every other key (Tab, Escape) for the CLI, which needs them.
  term.attachCustomKeyEventHandler((e) => {
    const isLeave = e.ctrlKey && !e.altKey && !e.metaKey && (e.code === 'BracketRight' || e.key === ']');
    if (!isLeave) return true;
    if (e.type === 'keydown') leave();
    e.preventDefault();
    return false;
  });
  term.onKey(() => {
    if (live.mode === 'view') show.setNote('view only: press Take over to type');
  });
  live.link.start();
  return live;
}

const LABEL: Record<Mode, string> = {
  connecting: '…',
  view: 'view only',
  control: `you are typing — ${LEAVE_KEY} leaves the terminal`,
  reconnecting: 'reconnecting…',
  ended: 'closed',
  'signed-out': 'signed out',
};

export function TerminalView({ id }: { id: string }) {
  const box = useRef<HTMLDivElement>(null);
  const live = useRef<Live | null>(null);
  const [mode, setMode] = useState<Mode>('connecting');
  const [note, setNote] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [wide, setWide] = useState(false);
  const show: Show = { setMode, setNote, setAttempt, setWide };
  const releaseButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const leave = (): void => (live.current?.term.blur(), releaseButton.current?.focus());
    const l = connect(id, box.current, show, leave);
    live.current = l;
    const onResize = (): void => {
      scaleToFit(l, show);
      if (l.mode !== 'control') return;
      const d = l.fit.proposeDimensions();
      if (d) l.link.send(JSON.stringify({ t: 'size', cols: d.cols, rows: d.rows }));
    };
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      l.link.dispose();
      l.term.dispose();
      live.current = null;
    };
  }, [id]);
  const take = (): void => {
    const l = live.current;
    if (!l) return;
    // Taken over, the terminal is the page's size at the full font: measure at that font.
    l.term.options.fontSize = FONT_PX;
    const d = l.fit.proposeDimensions();
    scaleToFit(l, show);
    if (!l.link.send(JSON.stringify({ t: 'take', ...(d ? { cols: d.cols, rows: d.rows } : {}) }))) return;
    setNote(null);
    // A phone on its side: the terminal (sized to fit under the header, app.css) comes up to the top.
    if (window.innerHeight < 500) box.current?.parentElement?.scrollIntoView({ block: 'start' });
  };
  const release = (): void => void live.current?.link.send(JSON.stringify({ t: 'release' }));
  const down = mode === 'reconnecting' || mode === 'ended';
  return (
    <div className="terminal-view">
      <div className="buttons">
        <span className={`term-mode ${mode}`} data-testid="term-mode" data-mode={mode}>
          {LABEL[mode]}
          {mode === 'reconnecting' ? ` (attempt ${attempt})` : ''}
        </span>
        {mode === 'view' ? (
          <button onClick={take} data-testid="take-over">
            Take over
          </button>
        ) : null}
        {mode === 'control' ? (
          <button onClick={release} data-testid="release" ref={releaseButton}>
            Release
          </button>
        ) : null}
        {down ? (
          <button onClick={() => live.current?.link.retryNow()} data-testid="reconnect">
            {mode === 'reconnecting' ? 'Reconnect now' : 'Reconnect'}
          </button>
        ) : null}
      </div>
      {note ? (
        <div className="note" data-testid="term-note">
          <Rich text={note} />
        </div>
      ) : null}
      {wide && mode === 'view' ? (
        <div className="note" data-testid="term-wide">
          wider than this screen: scroll the terminal sideways to see the rest
        </div>
      ) : null}
      <div className={`term${down || mode === 'signed-out' ? ' down' : ''}`} ref={box} data-testid="terminal" />
    </div>
  );
}
