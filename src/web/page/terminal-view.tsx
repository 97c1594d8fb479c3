/**
 * A PTY session's live terminal (xterm.js, loaded with this view), over the server's WebSocket
 * (web/terminal.ts). View-only until "Take over": then keys go to the CLI and the terminal's size
 * is the page's; "Release" hands it back. A session held elsewhere is refused with the holder
 * named. xterm answers the CLI's terminal queries itself: those go out only while taken over.
 */
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { stampStyleNonce } from './style-nonce.js';

type Mode = 'connecting' | 'view' | 'control' | 'ended';

type FromServer =
  | { t: 'screen'; cols: number; rows: number; mode: 'view' | 'control' }
  | { t: 'resized'; cols: number; rows: number }
  | { t: 'refused'; code: string; message: string; hint?: string }
  | { t: 'exit'; exitCode: number | null; signal: number | null };

interface Live {
  ws: WebSocket;
  term: Terminal;
  fit: FitAddon;
  mode: Mode;
}

function onServer(live: Live, m: FromServer, setMode: (m: Mode) => void, setNote: (n: string | null) => void) {
  const { term } = live;
  switch (m.t) {
    case 'screen':
      term.reset();
      term.resize(m.cols, m.rows);
      live.mode = m.mode;
      setMode(m.mode);
      if (m.mode === 'control') {
        setNote(null);
        term.focus();
      }
      return;
    case 'resized':
      if (live.mode === 'view') term.resize(m.cols, m.rows);
      return;
    case 'refused':
      setNote(`${m.message}${m.hint ? ` — ${m.hint}` : ''} [${m.code}]`);
      return;
    case 'exit':
      setNote(`the session's CLI exited (${m.signal ? `signal ${m.signal}` : `code ${m.exitCode}`})`);
      return;
  }
}

function connect(id: string, box: HTMLDivElement, setMode: (m: Mode) => void, setNote: (n: string | null) => void) {
  stampStyleNonce();
  const term = new Terminal({ fontSize: 13, scrollback: 1000, theme: { background: '#0f1115' } });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(box);
  const ws = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/sessions/${id}/terminal`,
  );
  ws.binaryType = 'arraybuffer';
  const live: Live = { ws, term, fit, mode: 'connecting' };
  ws.onmessage = (e: MessageEvent<string | ArrayBuffer>) => {
    if (typeof e.data !== 'string') term.write(new Uint8Array(e.data));
    else onServer(live, JSON.parse(e.data) as FromServer, setMode, setNote);
  };
  ws.onclose = () => {
    live.mode = 'ended';
    setMode('ended');
  };
  // Keys (and xterm's answers to the CLI's queries) go out only while this page holds the session.
  term.onData((d) => {
    if (live.mode === 'control' && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ t: 'in', d }));
  });
  term.onKey(() => {
    if (live.mode === 'view') setNote('view only: press Take over to type');
  });
  return live;
}

export function TerminalView({ id }: { id: string }) {
  const box = useRef<HTMLDivElement>(null);
  const live = useRef<Live | null>(null);
  const [mode, setMode] = useState<Mode>('connecting');
  const [note, setNote] = useState<string | null>(null);
  // A new connection (after a drop): the server sends the current screen first, so nothing is lost.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!box.current) return;
    const l = connect(id, box.current, setMode, setNote);
    live.current = l;
    const onResize = (): void => {
      if (l.mode !== 'control') return;
      const d = l.fit.proposeDimensions();
      if (d) l.ws.send(JSON.stringify({ t: 'size', cols: d.cols, rows: d.rows }));
    };
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      l.ws.onclose = null;
      l.ws.onmessage = null;
      l.ws.close();
      l.term.dispose();
      live.current = null;
    };
  }, [id, attempt]);
  const take = (): void => {
    const l = live.current;
    if (!l || l.ws.readyState !== WebSocket.OPEN) return;
    setNote(null);
    const d = l.fit.proposeDimensions();
    l.ws.send(JSON.stringify({ t: 'take', ...(d ? { cols: d.cols, rows: d.rows } : {}) }));
  };
  const release = (): void => live.current?.ws.send(JSON.stringify({ t: 'release' }));
  return (
    <div className="terminal-view">
      <div className="buttons">
        <span className={`term-mode ${mode}`} data-testid="term-mode" data-mode={mode}>
          {mode === 'control' ? 'you are typing' : mode === 'view' ? 'view only' : mode === 'ended' ? 'closed' : '…'}
        </span>
        {mode === 'view' ? (
          <button onClick={take} data-testid="take-over">
            Take over
          </button>
        ) : null}
        {mode === 'control' ? (
          <button onClick={release} data-testid="release">
            Release
          </button>
        ) : null}
        {mode === 'ended' ? (
          <button
            onClick={() => (setNote(null), setMode('connecting'), setAttempt(attempt + 1))}
            data-testid="reconnect"
          >
            Reconnect
          </button>
        ) : null}
      </div>
      {note ? (
        <div className="note" data-testid="term-note">
          {note}
        </div>
      ) : null}
      <div className="term" ref={box} data-testid="terminal" />
    </div>
  );
}
