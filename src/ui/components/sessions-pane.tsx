/** The left pane: the session tree, titled with its row count and the filter in force. */
import type { ClockPaint } from '../deps.js';
import type { Layout } from '../layout.js';
import type { UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import type { TreeView } from '../view.js';
import { Pane } from './pane.js';
import { TreePane } from './tree-pane.js';

export interface SessionsPaneProps {
  tree: TreeView;
  ui: UiState;
  layout: Layout;
  /** Inner text width. */
  width: number;
  now: number;
  focused: boolean;
  theme: Theme;
  /** Moves the running rows' clocks between renders (render/clock-painter.ts). */
  clocks?: ClockPaint;
}

export function SessionsPane({ tree, ui, layout, width, now, focused, theme, clocks }: SessionsPaneProps) {
  const filterNote = ui.filter && !ui.filterEditing ? ` · /${ui.filter}` : '';
  const order = ui.groupByState ? ' · by state' : '';
  const title = `sessions ${tree.rows.length}${ui.showArchived ? ' (with archived)' : ''}${order}${filterNote}`;
  const emptyText = ui.filter
    ? `nothing matches "${ui.filter}" (/ then Esc clears)`
    : 'no sessions yet: n opens claude, s starts an agent';
  return (
    <Pane title={title} width={layout.treeWidth} rows={layout.paneRows} focused={focused} theme={theme}>
      <TreePane
        rows={tree.rows}
        selected={tree.selectedIndex}
        focused={focused}
        width={width}
        height={layout.paneRows}
        theme={theme}
        now={now}
        emptyText={emptyText}
        ptyIds={tree.ptyIds}
        alone={layout.narrow}
        {...(clocks ? { clocks } : {})}
      />
    </Pane>
  );
}
