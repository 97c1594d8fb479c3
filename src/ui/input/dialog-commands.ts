/**
 * The Dialogs commands: the help, the confirm dialog (and what each yes does), the agent-type
 * picker, and the text input of the message, deny and start dialogs and of the filter and search.
 */
import { cleanName } from '../../core/session-title.js';
import { shortId } from '../../core/ids.js';
import type { CommandIn } from '../keymap.js';
import type { ConfirmIntent, Modal } from '../state/ui-state.js';
import { confirmAllowAlways, submitDeny } from './approval-commands.js';
import type { CommandEnv } from './command-env.js';
import { errText, label, track } from './command-feedback.js';
import { errorNotice } from '../state/notice.js';
import { sendReview } from './review-commands.js';
import { openSession } from './session-commands.js';
import { searchLog } from './view-commands.js';

export function runDialogCommand(id: CommandIn<'Dialogs'>, env: CommandEnv): void {
  const { ui, dispatch, actions } = env;
  switch (id) {
    case 'help.close':
    case 'peek.close':
      return dispatch({ type: 'closeModal' });
    case 'help.up':
      return dispatch({ type: 'scrollHelp', by: -1, max: env.help.lines - env.help.height });
    case 'help.down':
      return dispatch({ type: 'scrollHelp', by: 1, max: env.help.lines - env.help.height });
    case 'confirm.stopPty':
      if (ui.modal?.kind !== 'confirm' || ui.modal.intent.kind !== 'quit') return;
      dispatch({ type: 'closeModal' });
      return actions.quit({ stopPtySessions: true });
    case 'confirm.yes':
      if (ui.modal?.kind === 'confirm') confirmed(env, ui.modal.intent);
      return;
    case 'confirm.no':
      return dispatch({ type: 'closeModal' });
    case 'picker.up':
      return dispatch({ type: 'pick', by: -1 });
    case 'picker.down':
      return dispatch({ type: 'pick', by: 1 });
    case 'picker.pick':
      if (ui.modal?.kind === 'start' && ui.modal.choices?.length) dispatch({ type: 'startStep', step: 'prompt' });
      return;
    case 'picker.parent':
      return dispatch({ type: 'startParent' });
    case 'picker.cancel':
      return dispatch({ type: 'closeModal' });
    case 'input.submit':
      return submit(env);
    case 'input.cancel':
      if (ui.modal) return dispatch({ type: 'closeModal' });
      if (ui.searchEditing) return dispatch({ type: 'searchEnd', keep: false });
      return dispatch({ type: 'filterEnd', keep: false });
    case 'input.back':
      if (ui.modal?.kind === 'start') dispatch({ type: 'startStep', step: 'type' });
      return;
    case 'input.backspace':
      return dispatch({ type: 'edit', op: 'backspace' });
    case 'input.deleteWord':
      return dispatch({ type: 'edit', op: 'deleteWord' });
    case 'input.clear':
      return dispatch({ type: 'edit', op: 'clear' });
  }
}

/** The person said yes: do what the confirm dialog asked about. */
function confirmed(env: CommandEnv, intent: ConfirmIntent): void {
  const { actions, tree } = env;
  env.dispatch({ type: 'closeModal' });
  switch (intent.kind) {
    case 'open':
      openSession(env, intent.sessionId);
      return;
    case 'quit':
      actions.quit();
      return;
    case 'allowAlways':
      confirmAllowAlways(env, intent);
      return;
    case 'sendReview':
      sendReview(env, intent.originId, intent.reviewIds);
      return;
    case 'interrupt':
      track(
        env,
        'interrupting…',
        actions.interrupt(intent.sessionIds),
        (r) => {
          const bad = r.results.filter((x) => !x.ok);
          return bad.length
            ? `could not interrupt ${bad.map((b) => `${shortId(b.sessionId)}${b.code ? ` (${b.code})` : ''}`).join(', ')}`
            : `interrupted ${intent.sessionIds.map(shortId).join(', ')}${droppedText(r.dropped ?? [])}`;
        },
        tree.byId.get(intent.sessionIds[0]!),
      );
      return;
    case 'archive': {
      const first = tree.byId.get(intent.sessionIds[0]!);
      const what = first ? label(first) : shortId(intent.sessionIds[0]!);
      const more =
        intent.sessionIds.length > 1
          ? ` and ${intent.sessionIds.length - 1} sub-agent${intent.sessionIds.length > 2 ? 's' : ''}`
          : '';
      track(
        env,
        intent.archive ? 'archiving…' : 'restoring…',
        actions.archive(intent.sessionIds, intent.archive),
        (r) =>
          intent.archive
            ? `archived ${what}${more} (a shows archived sessions)${r?.note ? `; ${r.note}` : ''}`
            : `${what}${more} back in the tree`,
      );
      return;
    }
  }
}

function submit(env: CommandEnv): void {
  const { ui, dispatch } = env;
  const m = ui.modal;
  if (m?.kind === 'message') return submitMessage(env, m);
  if (m?.kind === 'deny') return submitDeny(env, m);
  if (m?.kind === 'start') return submitStart(env, m);
  if (ui.filterEditing) dispatch({ type: 'filterEnd', keep: true });
  if (ui.searchEditing) {
    dispatch({ type: 'searchEnd', keep: true });
    searchLog(env, ui.search, env.log.top, 1);
  }
}

function submitMessage(env: CommandEnv, m: Extract<Modal, { kind: 'message' }>): void {
  const { actions, dispatch } = env;
  if (m.rename) return submitRename(env, m.sessionId, m.text);
  const text = m.text.trim();
  if (!text) return dispatch({ type: 'notice', notice: { text: 'type a message first (Esc cancels)', tone: 'warn' } });
  dispatch({ type: 'closeModal' });
  if (m.pty)
    return track(
      env,
      `typing into ${shortId(m.sessionId)}…`,
      actions.reply(m.sessionId, text),
      () => `typed into ${shortId(m.sessionId)}'s prompt and pressed Enter (t talks to it, Space peeks)`,
      env.tree.byId.get(m.sessionId),
    );
  track(
    env,
    `sending to ${shortId(m.sessionId)}…`,
    actions.message(m.sessionId, text),
    (r) => deliveredText(shortId(m.sessionId), r.delivered),
    env.tree.byId.get(m.sessionId),
  );
}

/** The typed title (empty: back to the prompt), as `klaude rename` writes it. */
function submitRename(env: CommandEnv, sessionId: string, typed: string): void {
  const name = cleanName(typed) || null;
  env.dispatch({ type: 'closeModal' });
  env.actions.mark(sessionId, { name }).then(
    () =>
      env.dispatch({
        type: 'notice',
        notice: {
          text: name ? `${shortId(sessionId)} is "${name}"` : `${shortId(sessionId)}: title cleared`,
          tone: 'info',
        },
      }),
    (e: unknown) => env.dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } }),
  );
}

/** Start the picked agent type with the typed prompt, and select it once it is there. */
function submitStart(env: CommandEnv, m: Extract<Modal, { kind: 'start' }>): void {
  const { actions, dispatch } = env;
  const text = m.text.trim();
  const type = m.choices?.[m.index]?.name;
  if (!type) return dispatch({ type: 'startStep', step: 'type' });
  if (!text)
    return dispatch({
      type: 'notice',
      notice: { text: 'type the prompt for the agent first (Esc cancels)', tone: 'warn' },
    });
  dispatch({ type: 'closeModal' });
  env.dispatch({ type: 'busy', text: `starting ${type}…` });
  actions.start({ type, prompt: text, parentId: m.parentId }).then(
    (r) => {
      dispatch({ type: 'busy', text: null });
      // What klaude has to say about the start (e.g. that agents run unsandboxed here, said once).
      const notes = r.notes?.length ? ` — ${r.notes.join('; ')}` : '';
      dispatch({
        type: 'notice',
        notice: {
          text: `started ${type} ${r.sessionIds.map(shortId).join(', ')}${notes}`,
          tone: notes ? 'warn' : 'info',
        },
      });
      if (r.sessionIds[0]) dispatch({ type: 'select', id: r.sessionIds[0] });
    },
    (e: unknown) => {
      dispatch({ type: 'busy', text: null });
      dispatch({ type: 'notice', notice: errorNotice(e) });
    },
  );
}

/** Messages an interrupt kept from being sent, named so nothing is dropped silently. */
function droppedText(dropped: readonly string[]): string {
  if (dropped.length === 0) return '';
  const shown = dropped.map((t) => `"${t.length > 40 ? `${t.slice(0, 39)}…` : t}"`).join(', ');
  return `; not sent (queued behind the turn): ${shown}`;
}

/** What happened to a message, in words (not the runtime's `stdin` / `queued` / `resumed`). */
function deliveredText(who: string, delivered: string): string {
  if (delivered === 'stdin') return `sent to ${who}: it reads it when its current turn ends`;
  if (delivered === 'queued') return `queued for ${who}: it runs when the current turn ends`;
  if (delivered === 'recovering') return `${who} had crashed mid-turn: klaude resumes it with your message`;
  return `${who} had stopped: resumed with your message`;
}
