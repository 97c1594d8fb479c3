/** A sentence from the server with its `backtick` commands shown as code, and its error code out of sight. */
import { codeOf, describe } from './api.js';

export function Rich({ text }: { text: string }) {
  // A CLI-style trailing `[E_CODE]` is kept, small and muted, for whoever reports it.
  const m = /^([\s\S]*?)\s*\[(E_[A-Z0-9_]+)\]$/.exec(text);
  const parts = (m ? m[1]! : text).split(/`([^`]+)`/);
  return (
    <>
      {parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : p))}
      {m ? <small className="code">{m[2]}</small> : null}
    </>
  );
}

/** An error as a person reads it: the sentence, the code only as a tooltip and a small muted suffix. */
export function Problem({ error, testId }: { error: unknown; testId?: string }) {
  const code = codeOf(error);
  return (
    <p className="error problem" data-testid={testId} title={code ?? undefined}>
      <Rich text={describe(error)} />
      {code ? <small className="code">{code}</small> : null}
    </p>
  );
}
