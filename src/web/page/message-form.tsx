/**
 * A session's message box: its draft kept in this browser (drafts.ts), images pasted into it or
 * picked (image-pick.ts; only for agents whose CLI takes them), and dictation where the browser
 * offers speech recognition (voice.ts; no button where it does not).
 */
import { useEffect, useRef, useState } from 'react';
import { MAX_IMAGES } from '../../core/image.js';
import { loadDraft, saveDraft } from './drafts.js';
import { ImageIcon, MicIcon } from './icons.js';
import { pastedFiles, pickImage, type PickedImage } from './image-pick.js';
import { listen, speechRecognition, type Recognition } from './voice.js';

type Update = string | ((cur: string) => string);

/** The box's text, kept as the session's draft; a switch to another session shows that one's. */
export function useDraft(sessionId: string): [string, (v: Update) => void] {
  const [state, setState] = useState(() => ({ id: sessionId, text: loadDraft(sessionId) }));
  const current = state.id === sessionId ? state : { id: sessionId, text: loadDraft(sessionId) };
  if (current !== state) setState(current);
  useEffect(() => saveDraft(current.id, current.text), [current.id, current.text]);
  const set = (v: Update): void =>
    setState((cur) => {
      const base = cur.id === sessionId ? cur.text : loadDraft(sessionId);
      return { id: sessionId, text: typeof v === 'function' ? v(base) : v };
    });
  return [current.text, set];
}

export interface MessageFormProps {
  msg: string;
  setMsg: (v: Update) => void;
  images: PickedImage[];
  setImages: (f: (cur: PickedImage[]) => PickedImage[]) => void;
  /** The agent's CLI takes images (claude); else why not, said when one is pasted. */
  imagesRefused: string | null;
  busy: boolean;
  send: () => void;
  /** A sentence for the person (a refused image, the microphone). */
  say: (text: string) => void;
}

export function MessageForm(p: MessageFormProps) {
  const add = async (files: File[]): Promise<void> => {
    if (files.length === 0) return;
    if (p.imagesRefused) return p.say(p.imagesRefused);
    for (const f of files) {
      const got = await pickImage(f);
      if (typeof got === 'string') p.say(got);
      else
        p.setImages((cur) => {
          if (cur.length < MAX_IMAGES) return [...cur, got];
          p.say(`a message takes at most ${MAX_IMAGES} images`);
          return cur;
        });
    }
  };
  const ready = (p.msg.trim() !== '' || p.images.length > 0) && !p.busy;
  return (
    <>
      <form
        className="row message"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) p.send();
        }}
      >
        <input
          value={p.msg}
          onChange={(e) => p.setMsg(e.target.value)}
          onPaste={(e) => {
            const files = pastedFiles(e.clipboardData);
            if (files.length === 0) return;
            e.preventDefault();
            void add(files);
          }}
          placeholder="message the agent"
          aria-label="message the agent"
          data-testid="message-input"
        />
        <Voice setMsg={p.setMsg} say={p.say} />
        {p.imagesRefused ? null : <PickButton add={(files) => void add(files)} />}
        <button disabled={!ready} data-testid="message-send">
          Send
        </button>
      </form>
      <Thumbs images={p.images} remove={(i) => p.setImages((cur) => cur.filter((_, j) => j !== i))} />
    </>
  );
}

/** The button that picks images (a hidden file input behind it: the phone's photo picker). */
function PickButton({ add }: { add: (files: File[]) => void }) {
  const pick = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={pick}
        type="file"
        accept="image/png,image/jpeg,image/gif,image/webp"
        multiple
        hidden
        data-testid="image-pick"
        onChange={(e) => {
          add([...(e.target.files ?? [])]);
          e.target.value = '';
        }}
      />
      <button type="button" title="add an image" aria-label="add an image" onClick={() => pick.current?.click()}>
        <ImageIcon />
      </button>
    </>
  );
}

/** The images about to be sent, each with a button that takes it back. */
function Thumbs({ images, remove }: { images: PickedImage[]; remove: (i: number) => void }) {
  if (images.length === 0) return null;
  return (
    <div className="thumbs" data-testid="message-images">
      {images.map((img, i) => (
        <figure key={`${i}-${img.name}`}>
          <img src={img.dataUrl} alt={img.name} />
          <button type="button" aria-label={`remove ${img.name}`} onClick={() => remove(i)}>
            ×
          </button>
        </figure>
      ))}
    </div>
  );
}

/** The microphone button: only where the browser has speech recognition. */
function Voice(p: { setMsg: (v: Update) => void; say: (text: string) => void }) {
  const [Ctor] = useState(speechRecognition);
  const [rec, setRec] = useState<Recognition | null>(null);
  useEffect(() => () => rec?.stop(), [rec]);
  if (!Ctor) return null;
  const toggle = (): void => {
    if (rec) return rec.stop();
    try {
      setRec(
        listen(
          Ctor,
          (text) => p.setMsg((cur) => (cur.trim() ? `${cur.trimEnd()} ${text}` : text)),
          (error) => {
            setRec(null);
            if (error) p.say(error);
          },
        ),
      );
    } catch (e) {
      p.say(`speech recognition could not start: ${(e as Error).message}`);
    }
  };
  return (
    <button
      type="button"
      data-testid="voice"
      className={rec ? 'listening' : undefined}
      aria-pressed={rec !== null}
      aria-label={rec ? 'stop dictating' : 'dictate'}
      title={rec ? 'stop dictating' : 'dictate'}
      onClick={toggle}
    >
      <MicIcon />
    </button>
  );
}
