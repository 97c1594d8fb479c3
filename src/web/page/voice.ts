/**
 * Dictation into the message box where the browser offers speech recognition (Chrome's and
 * Safari's `webkitSpeechRecognition`, the standard `SpeechRecognition`); where it offers none,
 * `speechRecognition()` is null and the page shows no microphone button.
 */
interface RecognitionResult {
  readonly isFinal: boolean;
  readonly 0: { transcript: string };
}
interface RecognitionEvent {
  readonly resultIndex: number;
  readonly results: { readonly length: number; readonly [i: number]: RecognitionResult };
}
export interface Recognition {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onresult: ((e: RecognitionEvent) => void) | null;
  onend: (() => void) | null;
  onerror: ((e: { error: string }) => void) | null;
  start(): void;
  stop(): void;
}
type RecognitionCtor = new () => Recognition;

/** The browser's speech recognition, or null when it has none. */
export function speechRecognition(): RecognitionCtor | null {
  const w = window as unknown as { SpeechRecognition?: RecognitionCtor; webkitSpeechRecognition?: RecognitionCtor };
  return w.SpeechRecognition ?? w.webkitSpeechRecognition ?? null;
}

/**
 * Listen once (until the person stops speaking or presses the button again): each final phrase is
 * handed to `onText`; `onDone` runs when listening ends, with why when it failed.
 */
export function listen(
  Ctor: RecognitionCtor,
  onText: (text: string) => void,
  onDone: (error?: string) => void,
): Recognition {
  const r = new Ctor();
  r.lang = navigator.language || 'en-US';
  r.continuous = false;
  r.interimResults = false;
  r.onresult = (e) => {
    for (let i = e.resultIndex; i < e.results.length; i++) {
      const res = e.results[i]!;
      if (res.isFinal && res[0].transcript.trim()) onText(res[0].transcript.trim());
    }
  };
  let failed: string | undefined;
  r.onerror = (e) => {
    failed = e.error === 'not-allowed' ? 'the microphone was not allowed' : `speech recognition failed (${e.error})`;
  };
  r.onend = () => onDone(failed);
  r.start();
  return r;
}
