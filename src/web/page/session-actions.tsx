/**
 * A session's actions — message, interrupt (cancel while queued), terminal, diff, merge, archive —
 * each answered with a sentence from what the server returned; errors in red. A note goes when the
 * session changes state, or after a while.
 */
import { useEffect, useState } from 'react';
import type { Delivery } from '../../agent-ops/message.js';
import type { MergeOutcome } from '../../git/merge.js';
import type { SessionDiff } from '../../git/session-diff.js';
import type { ArchiveResult } from '../actions.js';
import type { WebSession } from '../hub.js';
import {
  archiveConfirm,
  archiveWords,
  deliveryWords,
  interruptConfirm,
  interruptWords,
  mergeWords,
} from './action-words.js';
import { api, describe } from './api.js';
import { isLive } from './display.js';
import { Rich } from './rich-text.js';
import { MessageForm, useDraft } from './message-form.js';
import { imageBody, type PickedImage } from './image-pick.js';

/** How long a note stays when nothing else clears it (an error stays longer: it may need reading). */
const NOTE_MS = { ok: 12_000, error: 60_000 };

export interface ActionsProps {
  s: WebSession;
  diff: boolean;
  toggleDiff: () => void;
  /** A PTY session's terminal: shown or not, and the switch between it and the log. */
  terminal: { shown: boolean; toggle: () => void } | null;
  /** Messages sent that the agent gets when its turn ends (shown in the log until it has them). */
  pending: readonly string[];
  setPending: (p: string[]) => void;
}

type Note = { text: string; error: boolean; at: number } | null;

/** A change of state this soon after a note is the action's own doing (a message resuming it): the note stays. */
const OWN_CHANGE_MS = 3000;

const ENDED = new Set(['done', 'failed', 'interrupted', 'cancelled']);

function useNote(status: string): [Note, (text: string | null, error?: boolean) => void] {
  const [note, setNote] = useState<Note>(null);
  useEffect(() => setNote((n) => (n && Date.now() - n.at > OWN_CHANGE_MS ? null : n)), [status]);
  useEffect(() => {
    if (!note) return;
    const t = setTimeout(() => setNote(null), note.error ? NOTE_MS.error : NOTE_MS.ok);
    return () => clearTimeout(t);
  }, [note]);
  return [note, (text, error = false) => setNote(text === null ? null : { text, error, at: Date.now() })];
}

export function Actions({ s, diff, toggleDiff, terminal, pending, setPending }: ActionsProps) {
  const [msg, setMsg] = useDraft(s.id);
  const [images, setImages] = useState<PickedImage[]>([]);
  const [note, setNote] = useNote(s.status);
  const [busy, setBusy] = useState(false);
  const [merged, setMerged] = useState(false);
  const run = <T,>(path: string, body: object, say: (r: T) => string): void => {
    setBusy(true);
    setNote(null);
    api
      .post<T>(`/api/sessions/${s.id}/${path}`, body)
      .then((r) => setNote(say(r)))
      .catch((e: unknown) => setNote(describe(e), true))
      .finally(() => setBusy(false));
  };
  const send = (): void => {
    const text = msg;
    const sent = images;
    run<Delivery>('message', { prompt: text, ...(sent.length ? { images: sent.map(imageBody) } : {}) }, (d) => {
      const w = deliveryWords(d, s);
      setMsg((cur) => (cur === text ? '' : cur));
      setImages((cur) => (cur === sent ? [] : cur));
      if (w.pending) setPending([...pending, text]);
      return w.text;
    });
  };
  const interrupt = (): void => {
    if (!confirm(interruptConfirm(s, pending.length))) return;
    run<{ dropped: string[] }>('interrupt', {}, (r) => {
      setPending([]);
      if (r.dropped.length > 0) setMsg((cur) => [cur, ...r.dropped].filter(Boolean).join('\n\n'));
      return interruptWords(s, r.dropped);
    });
  };
  const merge = (): void => {
    if (!confirm(`Merge ${s.worktreeBranch} into the project's branch?`)) return;
    run<MergeOutcome>('merge', {}, (r) => (setMerged(true), mergeWords(r)));
  };
  const archive = async (): Promise<void> => {
    const restore = !!s.archivedAt;
    if (!restore && s.worktreeBranch && !merged) {
      const changed = await api
        .get<SessionDiff>(`/api/sessions/${s.id}/diff`)
        .then((d) => d.files.length)
        .catch(() => 0);
      if (changed > 0 && !confirm(archiveConfirm(s, changed))) return;
    }
    run<ArchiveResult | null>('archive', { restore }, (r) => archiveWords(restore, r));
  };
  // A PTY session is typed to in its terminal (Take over): the server refuses messages to it.
  const canMessage = !s.pty;
  return (
    <>
      {canMessage ? (
        <MessageForm
          msg={msg}
          setMsg={setMsg}
          images={images}
          setImages={setImages}
          imagesRefused={s.runtime === 'claude' ? null : `${s.runtime} takes no images: only claude agents do`}
          busy={busy}
          send={send}
          say={(text) => setNote(text, true)}
        />
      ) : null}
      <ActionButtons
        s={s}
        busy={busy}
        diff={diff}
        toggleDiff={toggleDiff}
        terminal={terminal}
        act={{ interrupt, merge, archive: () => void archive() }}
      />
      {note ? <NoteLine note={note} /> : null}
    </>
  );
}

/** The buttons under the message box: what can be done to the session now. */
function ActionButtons(p: {
  s: WebSession;
  busy: boolean;
  diff: boolean;
  toggleDiff: () => void;
  terminal: ActionsProps['terminal'];
  act: { interrupt: () => void; merge: () => void; archive: () => void };
}) {
  const { s } = p;
  return (
    <div className="buttons">
      {isLive(s) ? (
        <button disabled={p.busy} className="danger" data-testid="interrupt" onClick={p.act.interrupt}>
          {s.status === 'queued' ? 'Cancel' : 'Interrupt'}
        </button>
      ) : null}
      {p.terminal ? (
        <button onClick={p.terminal.toggle} data-testid="terminal-toggle">
          {p.terminal.shown ? 'Log' : 'Terminal'}
        </button>
      ) : null}
      <button disabled={p.busy} onClick={p.toggleDiff} data-testid="diff-toggle">
        {p.diff ? 'Log' : 'Diff'}
      </button>
      {/* Merge only once the agent has finished: the CLI refuses a running one. */}
      {s.worktreeBranch && ENDED.has(s.status) ? (
        <button disabled={p.busy} data-testid="merge" onClick={p.act.merge}>
          Merge
        </button>
      ) : null}
      <button disabled={p.busy} data-testid="archive" onClick={p.act.archive}>
        {s.archivedAt ? 'Restore' : 'Archive'}
      </button>
    </div>
  );
}

function NoteLine({ note }: { note: NonNullable<Note> }) {
  return (
    <div
      className={`note${note.error ? ' error' : ''}`}
      role={note.error ? 'alert' : 'status'}
      data-testid="action-note"
    >
      <Rich text={note.text} />
    </div>
  );
}
