/**
 * What was typed into a session's message box and not sent, kept in this browser (localStorage,
 * one entry per session), never on the server: it survives a reload, a closed tab and a restart
 * of the browser or the phone, and goes once the message is sent. A browser that keeps nothing
 * (storage full, or refused) simply has no drafts.
 */
const PREFIX = 'klaude.draft.';

function store(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function loadDraft(sessionId: string): string {
  try {
    return store()?.getItem(PREFIX + sessionId) ?? '';
  } catch {
    return '';
  }
}

/** Keep `text` as the session's draft ('' removes it). */
export function saveDraft(sessionId: string, text: string): void {
  try {
    if (text === '') store()?.removeItem(PREFIX + sessionId);
    else store()?.setItem(PREFIX + sessionId, text);
  } catch {
    /* full or refused: the box still works, only without a draft */
  }
}
