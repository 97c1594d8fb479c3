/**
 * The right pane: an open dialog, else the selected PTY session's live screen, else the
 * selected session's log (or its diff) under its pending permission request.
 */
import { Box } from 'ink';
import { shortId } from '../../core/ids.js';
import type { SessionView } from '../../feeds/session-tree.js';
import type { LogView } from '../hooks/use-log-view.js';
import type { ScreenView } from '../hooks/use-screen-preview.js';
import type { Layout } from '../layout.js';
import type { Modal } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { DialogPane, dialogTitle } from './dialog-pane.js';
import { LogPane } from './log-pane.js';
import { Pane } from './pane.js';
import { PreviewPane } from './preview-pane.js';
import { countRender } from '../render/ui-stats.js';

export interface RightPaneProps {
  dialog: Exclude<Modal, { kind: 'help' }> | null;
  sel: SessionView | null;
  sessionsById: ReadonlyMap<string, SessionView>;
  screen: ScreenView;
  /** The screen's rows are painted beside Ink's frame (the pane is left empty for them). */
  painter: boolean;
  log: LogView;
  /** The log pane sticks to the end. */
  follow: boolean;
  layout: Layout;
  /** Inner text width. */
  width: number;
  focused: boolean;
  theme: Theme;
}

const who = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;

export function RightPane(p: RightPaneProps) {
  countRender('right');
  const { dialog, layout, width, theme } = p;
  if (dialog) {
    return (
      <Pane title={dialogTitle(dialog)} width={layout.logWidth} rows={layout.paneRows} focused theme={theme}>
        <DialogPane modal={dialog} sessionsById={p.sessionsById} width={width} height={layout.paneRows} theme={theme} />
      </Pane>
    );
  }
  if (p.screen.shown && p.sel) return <ScreenBox {...p} sel={p.sel} />;
  return <LogBox {...p} />;
}

function ScreenBox({
  sel,
  screen: view,
  painter,
  layout,
  width,
  focused,
  theme,
}: RightPaneProps & { sel: SessionView }) {
  const screen = view.screen;
  return (
    <Pane
      title={`screen · ${who(sel)} · pty`}
      status={
        screen
          ? `${view.state === 'ended' ? 'ended' : 'live'} · ${screenSize(screen, width)} · t talks, v log`
          : 'connecting · t talks, v log'
      }
      width={layout.logWidth}
      rows={layout.paneRows}
      focused={focused}
      theme={theme}
    >
      {painter || !screen ? (
        <Box height={layout.paneRows} />
      ) : (
        <PreviewPane screen={screen} width={width} height={layout.paneRows} theme={theme} />
      )}
    </Pane>
  );
}

/**
 * The screen's size; when it is wider than the pane (someone attached elsewhere keeps it their
 * size, or the session has ended) the pane shows its left part, and says so.
 */
function screenSize(screen: { cols: number; rows: number }, width: number): string {
  return screen.cols > width ? `left ${width} of ${screen.cols} columns` : `${screen.cols}×${screen.rows}`;
}

function LogBox({ sel, sessionsById, log, follow, layout, focused, theme }: RightPaneProps) {
  const { diff, win, lines, ask, reviews } = log;
  const below = lines.length - (win.top + win.height);
  const status = reviews
    ? `${reviews.count} reviewer${reviews.count === 1 ? '' : 's'} · ${below > 0 ? `${below} more ↓ · ` : ''}R: log`
    : diff
      ? `${diff.state === 'ready' ? `${diff.files} file${diff.files === 1 ? '' : 's'} · ` : ''}${below > 0 ? `${below} more ↓ · ` : ''}c: log`
      : follow
        ? 'following'
        : `paused${below > 0 ? ` · ${below} more ↓` : ''}`;
  // Where its commands run (`sandboxed`, `unsandboxed: <why>`), for a headless agent.
  const where = sel?.sandbox ? ` · ${sel.sandbox}` : '';
  const title = sel
    ? reviews
      ? `reviews · ${who(sessionsById.get(sel.reviewOf ?? sel.id) ?? sel)}`
      : diff
        ? `diff · ${sel.type} ${shortId(sel.id)}`
        : `log · ${who(sel)}${where}`
    : 'log';
  return (
    <Pane title={title} status={status} width={layout.logWidth} rows={layout.paneRows} focused={focused} theme={theme}>
      {ask.length > 0 ? <LogPane lines={ask} top={0} height={ask.length} theme={theme} /> : null}
      {log.painted ? (
        <Box height={win.height} />
      ) : (
        <LogPane lines={lines} top={win.top} height={win.height} theme={theme} />
      )}
    </Pane>
  );
}
