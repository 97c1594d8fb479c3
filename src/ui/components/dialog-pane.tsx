/** Dialogs shown in place of the log pane: confirm, start an agent, message an agent. */
import { Box, Text } from 'ink';
import { shortId } from '../../core/ids.js';
import { shownTitle } from '../../core/session-title.js';
import type { Modal } from '../state/ui-state.js';
import { isWorking, type SessionView } from '../../feeds/session-tree.js';
import { sanitize, truncate, wrapText } from '../text.js';
import type { Theme } from '../theme.js';

export interface DialogProps {
  modal: Exclude<Modal, { kind: 'help' }>;
  sessionsById: ReadonlyMap<string, SessionView>;
  width: number;
  height: number;
  theme: Theme;
}

export function dialogTitle(modal: Exclude<Modal, { kind: 'help' }>): string {
  switch (modal.kind) {
    case 'confirm':
      return modal.dangerous ? 'confirm (dangerous)' : 'confirm';
    case 'start':
      return modal.step === 'type' ? 'start an agent · 1/2 type' : 'start an agent · 2/2 prompt';
    case 'message':
      return modal.rename ? 'rename' : 'message';
    case 'deny':
      return 'deny a permission request';
    case 'peek':
      return modal.what === 'screen' ? 'peek · last screen' : 'peek · last message';
  }
}

const name = (s: SessionView | undefined, id: string): string =>
  s ? `${s.type === 'tui' ? 'claude' : s.type} ${shortId(id)}` : shortId(id);

/** The text being typed, wrapped, with a cursor at the end; the last `rows` lines. */
function InputBox({ text, width, rows, theme }: { text: string; width: number; rows: number; theme: Theme }) {
  const lines = wrapText(`${text}▏`, Math.max(1, width - 2));
  const shown = lines.slice(Math.max(0, lines.length - rows));
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        <Text key={i}>
          <Text {...theme.ui.key}>{i === 0 && shown.length === lines.length ? '› ' : '  '}</Text>
          {l}
        </Text>
      ))}
    </Box>
  );
}

type DialogOf<K extends Modal['kind']> = Extract<Modal, { kind: K }>;
interface PartProps<K extends Modal['kind']> extends Omit<DialogProps, 'modal'> {
  modal: DialogOf<K>;
}

export function DialogPane(props: DialogProps) {
  const { modal } = props;
  switch (modal.kind) {
    case 'confirm':
      return <ConfirmDialog {...props} modal={modal} />;
    case 'message':
      return <MessageDialog {...props} modal={modal} />;
    case 'deny':
      return <DenyDialog {...props} modal={modal} />;
    case 'peek':
      return <PeekDialog {...props} modal={modal} />;
    case 'start':
      return modal.step === 'prompt' ? (
        <StartPrompt {...props} modal={modal} />
      ) : (
        <TypePicker {...props} modal={modal} />
      );
  }
}

function ConfirmDialog({ modal, width, height, theme }: PartProps<'confirm'>) {
  const lines = wrapText(modal.message, width);
  return (
    <Box flexDirection="column">
      {lines.slice(0, Math.max(1, height - 2)).map((l, i) => (
        <Text key={i} {...(modal.dangerous ? theme.ui.danger : {})}>
          {l}
        </Text>
      ))}
      <Text> </Text>
      <Text>
        <Text {...theme.ui.key}>y</Text> yes <Text {...theme.ui.key}>n</Text>/<Text {...theme.ui.key}>Esc</Text> no
      </Text>
    </Box>
  );
}

function MessageDialog({ modal, sessionsById, width, height, theme }: PartProps<'message'>) {
  const target = sessionsById.get(modal.sessionId);
  return (
    <Box flexDirection="column">
      <Text {...theme.ui.muted}>
        {truncate(
          modal.rename
            ? `title of ${name(target, modal.sessionId)} (empty: its first prompt)`
            : modal.pty
              ? `into the prompt of ${name(target, modal.sessionId)} (its PTY session; typed, then Enter)`
              : `to ${name(target, modal.sessionId)} (${target?.status ?? 'gone'})`,
          width,
        )}
      </Text>
      <Text> </Text>
      <InputBox text={modal.text} width={width} rows={Math.max(1, height - 4)} theme={theme} />
      <Text> </Text>
      <Text {...theme.ui.muted}>{truncate(modal.rename ? '⏎ rename · Esc cancel' : '⏎ send · Esc cancel', width)}</Text>
    </Box>
  );
}

/** Peek: a PTY session's screen rows as they are (cut to the width), or a message wrapped; read-only. */
function PeekDialog({ modal, sessionsById, width, height, theme }: PartProps<'peek'>) {
  const target = sessionsById.get(modal.sessionId);
  const body =
    modal.lines === null
      ? ['reading…']
      : modal.error
        ? [modal.error]
        : modal.what === 'screen'
          ? trimBlank(modal.lines).map((l) => truncate(sanitize(l), width))
          : modal.lines.flatMap((l) => wrapText(sanitize(l), width));
  const rows = Math.max(1, height - 2);
  // A screen's last rows (where its prompt is), a message's beginning.
  const shown = modal.what === 'screen' ? body.slice(Math.max(0, body.length - rows)) : body.slice(0, rows);
  return (
    <Box flexDirection="column">
      <Text {...theme.ui.muted}>{truncate(`${name(target, modal.sessionId)} · Esc closes`, width)}</Text>
      {shown.map((l, i) => (
        <Text key={i} {...(modal.error ? theme.ui.warn : {})}>
          {l || ' '}
        </Text>
      ))}
    </Box>
  );
}

function trimBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return lines.slice(0, end);
}

function DenyDialog({ modal, sessionsById, width, height, theme }: PartProps<'deny'>) {
  const target = sessionsById.get(modal.sessionId);
  return (
    <Box flexDirection="column">
      <Text>{truncate(`deny ${name(target, modal.sessionId)} request ${modal.approvalId}: ${modal.what}`, width)}</Text>
      <Text {...theme.ui.muted}>
        {truncate('reason for the agent (optional; it sees it as the tool result):', width)}
      </Text>
      <InputBox text={modal.text} width={width} rows={Math.max(1, height - 5)} theme={theme} />
      <Text> </Text>
      <Text {...theme.ui.muted}>{truncate('⏎ deny · Esc cancel', width)}</Text>
    </Box>
  );
}

/** A session as the start dialog names it: type, short id and its title. */
function titled(s: SessionView | undefined, id: string): string {
  const title = s ? shownTitle(s).replace(/\s+/g, ' ').trim() : '';
  return `${name(s, id)}${title ? ` "${title.length > 40 ? `${title.slice(0, 39)}…` : title}"` : ''}`;
}

/** Where the started agent goes in the tree, in words. */
function startUnder(modal: DialogOf<'start'>, sessionsById: ReadonlyMap<string, SessionView>): string {
  const parent = modal.parentId ? sessionsById.get(modal.parentId) : undefined;
  return modal.parentId ? `under ${titled(parent, modal.parentId)}` : 'at the top level';
}

/**
 * What else the person should know about where it starts (wrapped lines): a worktree parent's child
 * works in the project's tree, not in that worktree; and what `p` would change.
 */
function startNotes(
  modal: DialogOf<'start'>,
  sessionsById: ReadonlyMap<string, SessionView>,
  picking: boolean,
  width: number,
): string[] {
  const notes: string[] = [];
  const parent = modal.parentId ? sessionsById.get(modal.parentId) : undefined;
  if (parent?.worktreeBranch) notes.push(`it works in the project's tree, not in ${parent.worktreeBranch}`);
  const sel = modal.selectedId ? sessionsById.get(modal.selectedId) : undefined;
  if (picking && !modal.parentId && sel?.worktreeBranch && !isWorking(sel) && modal.selectedId)
    notes.push(`${name(sel, modal.selectedId)} is a worktree agent, not working: p starts the new one under it anyway`);
  return notes.flatMap((n) => wrapText(n, width).slice(0, 2));
}

/** The dialog's key hint, with what `p` does now. */
function startKeys(modal: DialogOf<'start'>, keys: string): string {
  const p = !modal.selectedId ? '' : modal.parentId ? ' · p top level' : ` · p under ${shortId(modal.selectedId)}`;
  return `${keys}${p} · Esc cancel`;
}

/** Start an agent, step 2: its prompt. */
function StartPrompt({ modal, sessionsById, width, height, theme }: PartProps<'start'>) {
  const type = modal.choices?.[modal.index]?.name ?? '?';
  const notes = startNotes(modal, sessionsById, false, width);
  return (
    <Box flexDirection="column">
      <Text>{truncate(`${type} agent, ${startUnder(modal, sessionsById)}`, width)}</Text>
      {notes.map((n, i) => (
        <Text key={`n${i}`} {...theme.ui.muted}>
          {truncate(n, width)}
        </Text>
      ))}
      <Text> </Text>
      <InputBox text={modal.text} width={width} rows={Math.max(1, height - 4 - notes.length)} theme={theme} />
      <Text> </Text>
      <Text {...theme.ui.muted}>{truncate('⏎ start · S-Tab back · Esc cancel', width)}</Text>
    </Box>
  );
}

/** Start an agent, step 1: the list of agent types (and the problems reading them). */
function TypePicker({ modal, sessionsById, width, height, theme }: PartProps<'start'>) {
  if (modal.choices === null) return <Text {...theme.ui.muted}>reading agent definitions…</Text>;
  const notes = startNotes(modal, sessionsById, true, width);
  const listRows = Math.max(1, height - 3 - notes.length - Math.min(2, modal.problems.length));
  const top = Math.max(0, Math.min(modal.index - Math.floor(listRows / 2), modal.choices.length - listRows));
  return (
    <Box flexDirection="column">
      <Text {...theme.ui.muted}>{truncate(`agent type, ${startUnder(modal, sessionsById)}:`, width)}</Text>
      {notes.map((n, i) => (
        <Text key={`n${i}`} {...theme.ui.muted}>
          {truncate(n, width)}
        </Text>
      ))}
      {modal.choices.slice(top, top + listRows).map((c, i) => {
        const sel = top + i === modal.index;
        const text = truncate(`${sel ? '▸' : ' '} ${c.name}${c.description ? ` — ${c.description}` : ''}`, width);
        return (
          <Text key={c.name} {...(sel ? theme.ui.selected : {})}>
            {text}
          </Text>
        );
      })}
      {modal.choices.length === 0 ? <Text {...theme.ui.warn}>no agent types found</Text> : null}
      {modal.problems.slice(0, 2).map((p, i) => (
        <Text key={`p${i}`} {...theme.ui.warn}>
          {truncate(`! ${p}`, width)}
        </Text>
      ))}
      <Text {...theme.ui.muted}>{truncate(startKeys(modal, '↑↓ choose · ⏎ next'), width)}</Text>
    </Box>
  );
}
