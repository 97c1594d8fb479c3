/**
 * What the dashboard is given. The UI reads snapshots from sources and calls actions; it never
 * spawns processes or writes the DB itself (the supervisor implements the actions).
 */
import type { StartRequest } from '../control/protocol.js';
import type { Clock } from '../feeds/clock.js';
import type { LogSnapshot } from '../feeds/log-feed.js';
import type { PreviewSnapshot } from '../feeds/pty-preview.js';
import type { SessionsSnapshot } from '../feeds/sessions-feed.js';
import type { TermSize } from './layout.js';
import type { ReducerStore, Source } from '../feeds/store.js';
import type { SessionView } from '../feeds/session-tree.js';
import type { AgentChoice, UiAction, UiState } from './state/ui-state.js';
import type { PaintRegion } from './render/preview-painter.js';
import type { LogPaintRegion } from './render/log-painter.js';
import type { TreeClocks } from './render/clock-painter.js';
import type { Theme } from './theme.js';

/** What an agent changed, for the diff view (see git/session-diff.ts). */
export interface AgentDiff {
  /** One line: what it is a diff of (worktree branch vs base, or approximate). */
  heading: string;
  /** The unified diff ('' when nothing changed). */
  patch: string;
  files: number;
}

export interface DashboardActions {
  /** Hand the terminal to claude on this session's conversation (returns when it took over, or throws why not). */
  open(sessionId: string): Promise<void>;
  /** Hand the terminal to a fresh claude in a new root session. */
  newSession(): Promise<void>;
  /** Start agents the way `klaude start` does (the supervisor's `start` action). */
  start(
    req: Pick<StartRequest, 'type' | 'prompt'> & { parentId: string | null },
  ): Promise<{ sessionIds: string[]; notes?: string[] }>;
  message(sessionId: string, prompt: string): Promise<{ delivered: string }>;
  interrupt(
    sessionIds: string[],
  ): Promise<{ results: { sessionId: string; ok: boolean; code?: string }[]; dropped?: string[] }>;
  /**
   * Set or clear archived_at; refuses live sessions (nothing running is stopped). Archiving also
   * removes the worktrees of those agents whose branches are merged or empty; `note` says which
   * were kept (unmerged work).
   */
  archive(sessionIds: string[], archived: boolean): Promise<void | { note?: string }>;
  /** The person's marks on a session: its title (null clears it) and its pin. */
  mark(sessionId: string, m: { name?: string | null; pinned?: boolean }): Promise<void>;
  /** Answer the session's pending permission request (`request`: its approval number). */
  answer(
    sessionId: string,
    a: { request: string; behavior: 'allow' | 'deny'; always?: boolean; message?: string },
  ): Promise<{ approvalId: number; tool: string; summary: string; rule?: string }>;
  /** Where "allow always" has claude write the rule (the agent's .claude/settings.local.json). */
  rulePath(sessionId: string): string;
  /** What the agent changed (its worktree branch, or the files it touched in the shared tree). */
  diff(sessionId: string): Promise<AgentDiff>;
  /** Give a review's findings to the session it reviews, as a message (`klaude review <reviewer> --send`). */
  sendReview(reviewerId: string): Promise<{ delivered: string; findings: number }>;
  /** Start a reviewer on a session's work, as `klaude review <id>` (the default reviewer). */
  startReview(sessionId: string): Promise<{ sessionIds: string[]; runtime: string; notes: string[] }>;
  agentTypes(): Promise<{ choices: AgentChoice[]; problems: string[] }>;
  /**
   * Put the terminal through to the session's PTY (starting a PTY host when none runs) until the
   * person detaches; the dashboard is suspended meanwhile and comes back as it was. Resolves with
   * what happened (detached, the CLI exited, …) to show in the footer.
   */
  talk(sessionId: string): Promise<{ ok: boolean; message: string }>;
  /** What peeking shows: the PTY session's screen, or the session's last assistant message, as lines. */
  peek(sessionId: string, what: 'screen' | 'message'): Promise<string[]>;
  /**
   * Type one line into the prompt of the session's CLI in its PTY (a talk session) and press Enter;
   * refused (the holder named) while someone is attached to it.
   */
  reply(sessionId: string, text: string): Promise<void>;
  /** Leave. PTY sessions keep running unless `stopPtySessions` (the PTY server stops each one's CLI). */
  quit(opts?: { stopPtySessions?: boolean }): void;
  /** Clear the screen and paint the frame again. */
  redraw(): void;
  /** Put text on the terminal's clipboard (OSC 52; terminals that don't support it ignore it). */
  copy(text: string): void;
  /** Stop to the shell (Ctrl-Z); `fg` brings the dashboard back. */
  suspend(): void;
}

export interface LogSource extends Source<LogSnapshot> {
  select(sessionId: string | null, file: string | null): void;
}

export interface PreviewSource extends Source<PreviewSnapshot> {
  /** Watch this session's PTY screen (null: none). */
  select(sessionId: string | null, run: number | null): void;
  /** Ask the shown session's PTY to be the pane's size (see PtyPreviewFeed.fit). */
  fit?(size: { cols: number; rows: number } | null): void;
}

/** Draws the preview pane's inside beside Ink's frame (ui/render/preview-painter.ts). */
export interface PreviewPaint {
  /** Where the pane's inside is on the terminal (null: the preview is not shown). */
  place(region: PaintRegion | null): void;
}

/** Draws the running rows' clocks over Ink's frame (ui/render/clock-painter.ts). */
export interface ClockPaint extends Source<number> {
  /** The clocks a tree (`owner`) drew in this render (null: it shows none, or is gone). */
  rendered(c: TreeClocks | null, owner: object): void;
}

/** Draws the followed log's rows over Ink's frame (ui/render/log-painter.ts). */
export interface LogPaint {
  /** Where the log's rows are and how to read them (null: Ink draws the log). */
  place(region: LogPaintRegion | null): void;
}

export interface DashboardDeps {
  sessions: Source<SessionsSnapshot>;
  log: LogSource;
  /** Live screens of PTY sessions (absent: the right pane always shows the log). */
  preview?: PreviewSource;
  /** Present: the preview's rows are painted beside Ink's frame, not by Ink. */
  previewPaint?: PreviewPaint;
  /** Present: the followed log's rows are painted over Ink's frame, not by Ink. */
  logPaint?: LogPaint;
  ui: ReducerStore<UiState, UiAction>;
  size: Source<TermSize>;
  theme: Theme;
  actions: DashboardActions;
  info: { project: string; instanceId: string };
  /** Where a session's log is (null: it has none). */
  logPathOf(s: SessionView): string | null;
  /** Clock for ages (tests pin it). */
  now?: () => number;
  /** The ≤ 1 Hz tick for running rows' elapsed times (default: one per dashboard, 1 s). */
  clock?: Clock;
  /** Present: ticks of `clock` that move only clock digits are drawn over Ink's frame, not rendered. */
  clockPaint?: ClockPaint;
}
