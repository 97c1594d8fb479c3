// The one way tests render the dashboard: real stores and feeds (an in-memory DB seeded through
// the repos, log files on disk), ink-testing-library's fake terminal, and a render that resolves
// only once the input hook is armed (Ink attaches stdin in a passive effect after the first frame).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import { openMemoryDb, type Db } from '../../../src/db/client.js';
import { ensureProject } from '../../../src/db/repos/projects.js';
import { App } from '../../../src/ui/app.js';
import type { DashboardActions, DashboardDeps, PreviewSource } from '../../../src/ui/deps.js';
import type { Clock } from '../../../src/feeds/clock.js';
import { LogFeed } from '../../../src/feeds/log-feed.js';
import { SessionsFeed } from '../../../src/feeds/sessions-feed.js';
import { ProjectsFeed } from '../../../src/feeds/projects-feed.js';
import { SizeStore } from '../../../src/ui/host.js';
import { ReducerStore } from '../../../src/feeds/store.js';
import { initialUiState, uiReducer, type UiAction, type UiState } from '../../../src/ui/state/ui-state.js';
import { themes, type Theme } from '../../../src/ui/theme.js';
import { seedDemo, type DemoSession } from './demo-data.js';

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const PROJECT = 'p0000000000000000000000a';

const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  'shift+tab': '\x1b[Z',
  backspace: '\x7f',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  'ctrl+c': '\x03',
} as const;
export type TestKey = keyof typeof KEYS;

export interface ActionCall {
  name: keyof DashboardActions;
  args: unknown[];
}

export interface RenderedDashboard {
  db: Db;
  dir: string;
  sessions: Record<string, DemoSession>;
  feed: SessionsFeed;
  /** What the tree reads: this project, or every project while ui.allProjects (P) is on. */
  projects: ProjectsFeed;
  log: LogFeed;
  ui: ReducerStore<UiState, UiAction>;
  size: SizeStore;
  calls: ActionCall[];
  /** The last frame, as plain text. */
  frame(): string;
  press(...keys: (TestKey | string)[]): Promise<void>;
  /** Type text (one chunk, like a paste or fast typing). */
  type(text: string): Promise<void>;
  /** Resolves once pred(frame) holds (bounded). */
  waitFor(pred: (frame: string) => boolean, what?: string, ms?: number): Promise<void>;
  waitForText(text: string, ms?: number): Promise<void>;
  cleanup(): void;
}

export interface RenderOptions {
  columns?: number;
  rows?: number;
  /** Seed the demo project (default true). */
  demo?: boolean;
  ui?: Partial<UiState>;
  actions?: Partial<DashboardActions>;
  theme?: Theme;
  /** Live PTY screens (see PtyPreviewFeed). */
  preview?: PreviewSource;
  /** The running rows' clock (default: the dashboard's own, 1 s). */
  clock?: Clock;
  /** The time the dashboard reads (default: pinned at NOW). */
  now?: () => number;
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

export async function renderDashboard(opts: RenderOptions = {}): Promise<RenderedDashboard> {
  const dir = mkdtempSync(path.join(tmpdir(), 'klaude-ui-test-'));
  const db = openMemoryDb();
  ensureProject(db, { hash: PROJECT, rootPath: dir });
  const sessions = opts.demo === false ? {} : seedDemo(db, dir, PROJECT, NOW);
  const feed = new SessionsFeed({ db, projectId: PROJECT, frameMs: 0, watchFiles: false });
  const log = new LogFeed();
  const ui = new ReducerStore<UiState, UiAction>(uiReducer, { ...initialUiState, ...opts.ui });
  // As the dashboard wires it (dashboard/ui-supervisor.ts): the tree's feed follows ui.allProjects.
  const projects = new ProjectsFeed({
    db,
    home: feed,
    homeProject: { id: PROJECT, root: dir },
    frameMs: 0,
    watchFiles: false,
  });
  projects.setAll(ui.getSnapshot().allProjects);
  ui.subscribe(() => projects.setAll(ui.getSnapshot().allProjects));
  const size = new SizeStore({ columns: opts.columns ?? 100, rows: opts.rows ?? 30 });
  const calls: ActionCall[] = [];
  const record = <K extends keyof DashboardActions>(name: K, fallback: DashboardActions[K]): DashboardActions[K] =>
    ((...args: unknown[]) => {
      calls.push({ name, args });
      const impl = (opts.actions?.[name] ?? fallback) as (...a: unknown[]) => unknown;
      return impl(...args);
    }) as DashboardActions[K];
  const actions: DashboardActions = {
    open: record('open', async () => {}),
    newSession: record('newSession', async () => {}),
    start: record('start', async () => ({ sessionIds: ['01JSTARTEDAGENT00000000000'] })),
    message: record('message', async () => ({ delivered: 'stdin' })),
    interrupt: record('interrupt', async (ids: string[]) => ({
      results: ids.map((sessionId) => ({ sessionId, ok: true })),
      dropped: ['also run the linter'],
    })),
    archive: record('archive', async () => {}),
    mark: record('mark', async () => {}),
    answer: record('answer', async () => ({ approvalId: 1, tool: 'Bash', summary: 'npm test' })),
    rulePath: record('rulePath', () => '/p/.claude/settings.local.json'),
    diff: record('diff', async () => ({ heading: 'no diff in this test', patch: '', files: 0 })),
    sendReview: record('sendReview', async () => ({ delivered: 'resumed', findings: 2 })),
    startReview: record('startReview', async () => ({
      sessionIds: ['01JREVIEWAGENT000000000000'],
      runtime: 'codex',
      notes: [],
    })),
    agentTypes: record('agentTypes', async () => ({
      choices: [
        { name: 'general', description: 'plain Claude Code agent', source: 'builtin' },
        { name: 'reviewer', description: 'reviews diffs', source: 'project' },
      ],
      problems: [],
    })),
    talk: record('talk', async () => ({ ok: true, message: 'detached from it' })),
    peek: record('peek', async () => ['peeked line one', 'peeked line two']),
    reply: record('reply', async () => {}),
    quit: record('quit', () => {}),
    redraw: record('redraw', () => {}),
    copy: record('copy', () => {}),
    suspend: record('suspend', () => {}),
  };
  const deps: DashboardDeps = {
    sessions: projects,
    log,
    preview: opts.preview,
    ui,
    size,
    theme: opts.theme ?? themes.color,
    actions,
    info: { project: 'demo', instanceId: '01JINSTANCE000000000000000' },
    logPathOf: (s) => s.logPath,
    now: opts.now ?? (() => NOW),
    ...(opts.clock ? { clock: opts.clock } : {}),
  };
  const r = render(<App deps={deps} />);
  // Armed: Ink has attached its stdin listener (raw mode on) in the passive effect.
  for (let i = 0; i < 200 && r.stdin.listenerCount('readable') === 0; i++) await turn();
  if (r.stdin.listenerCount('readable') === 0) throw new Error('the dashboard never armed its input');
  await turn();

  const frame = (): string => r.lastFrame() ?? '';
  const waitFor = async (pred: (f: string) => boolean, what = 'condition', ms = 3000): Promise<void> => {
    const end = Date.now() + ms;
    while (!pred(frame())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n--- frame ---\n${frame()}\n---`);
      await new Promise((res) => setTimeout(res, 5));
    }
  };
  return {
    db,
    dir,
    sessions,
    feed,
    projects,
    log,
    ui,
    size,
    calls,
    frame,
    async press(...keys) {
      for (const k of keys) {
        r.stdin.write(KEYS[k as TestKey] ?? k);
        // A lone Esc is held by Ink's parser until the next turn.
        await turn();
        await turn();
      }
    },
    async type(text) {
      r.stdin.write(text);
      await turn();
      await turn();
    },
    waitFor,
    waitForText: (text, ms) => waitFor((f) => f.includes(text), JSON.stringify(text), ms),
    cleanup() {
      r.unmount();
      r.cleanup();
      log.close();
      projects.close();
      feed.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
