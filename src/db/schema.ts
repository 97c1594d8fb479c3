/**
 * The SQLite schema (drizzle sqlite-core). Source for `npm run db:generate`; the generated SQL in
 * drizzle/ is what runs. Conventions:
 * - timestamps are plain integer milliseconds since the epoch (`number`), `*_at` columns;
 * - klaude ids are ULIDs (TEXT); runtime-native ids (Claude UUID, Codex thread id, opencode ses_…)
 *   live beside them (`native_session_id`, `claude_session_links`), never in their place;
 * - JSON columns are TEXT with drizzle's json mode.
 */
import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { NOTIFY_KINDS } from '../core/notify-event.js';
import type { ReviewFinding } from '../core/findings.js';
import { SESSION_STATUSES } from '../core/status.js';
import type { ProgressRecord } from '../core/progress.js';

export const REVIEW_SUBJECTS = ['diff', 'output'] as const;
export const RUNTIMES = ['claude', 'codex', 'gemini', 'cursor', 'opencode'] as const;
export type Runtime = (typeof RUNTIMES)[number];
export const INSTANCE_MODES = ['cli', 'ui'] as const;
export type InstanceMode = (typeof INSTANCE_MODES)[number];
export const INSTANCE_STATUSES = ['running', 'exited', 'stale'] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];
/** 'cli': an agent runtime's CLI child (`claude -p`…), owned by its runtime's row (parent_process_id). */
export const PROCESS_KINDS = ['supervisor', 'claude', 'runtime', 'pty', 'cli'] as const;
export type ProcessKind = (typeof PROCESS_KINDS)[number];
/** Claude's SessionStart `source` values plus klaude's own ('headless' for `claude -p` runtimes). */
export type LinkSource = 'startup' | 'resume' | 'clear' | 'compact' | 'headless' | (string & {});

/** Epoch ms, also as the SQL default so raw inserts get the same unit. */
const nowMs = sql`(CAST(unixepoch('subsec') * 1000 AS INTEGER))`;
const createdAt = (name = 'created_at') =>
  integer(name)
    .notNull()
    .default(nowMs)
    .$defaultFn(() => Date.now());

export const projects = sqliteTable('projects', {
  /** projectHash(root): 24 hex chars. */
  id: text('id').primaryKey(),
  rootPath: text('root_path').notNull().unique(),
  createdAt: createdAt(),
});

export const instances = sqliteTable(
  'instances',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    pid: integer('pid').notNull(),
    socketPath: text('socket_path').notNull(),
    cwd: text('cwd').notNull(),
    mode: text('mode', { enum: INSTANCE_MODES }).notNull(),
    status: text('status', { enum: INSTANCE_STATUSES }).notNull().default('running'),
    rootSessionId: text('root_session_id').references((): AnySQLiteColumn => sessions.id, { onDelete: 'set null' }),
    klaudeVersion: text('klaude_version'),
    startedAt: createdAt('started_at'),
    endedAt: integer('ended_at'),
    exitCode: integer('exit_code'),
  },
  (t) => [index('instances_project_status_idx').on(t.projectId, t.status)],
);

export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    parentId: text('parent_id').references((): AnySQLiteColumn => sessions.id, { onDelete: 'set null' }),
    instanceId: text('instance_id').references((): AnySQLiteColumn => instances.id, { onDelete: 'set null' }),
    /** Agent type (from .claude/agents/*.md), 'tui' for root sessions. */
    type: text('type').notNull(),
    runtime: text('runtime', { enum: RUNTIMES }).notNull().default('claude'),
    status: text('status', { enum: SESSION_STATUSES }).notNull().default('pending'),
    title: text('title'),
    prompt: text('prompt'),
    model: text('model'),
    /** The runtime's own current session id (Claude UUID, Codex thread id, opencode ses_…). */
    nativeSessionId: text('native_session_id'),
    transcriptPath: text('transcript_path'),
    logPath: text('log_path'),
    /** Latest assistant text, truncated, for listings. */
    lastText: text('last_text'),
    costUsd: real('cost_usd'),
    tokensIn: integer('tokens_in'),
    tokensOut: integer('tokens_out'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** `--worktree` agents: the git worktree the agent works in, its branch, and the commit it started from. */
    worktreePath: text('worktree_path'),
    worktreeBranch: text('worktree_branch'),
    worktreeBase: text('worktree_base'),
    archivedAt: integer('archived_at'),
    createdAt: createdAt(),
    updatedAt: createdAt('updated_at'),
    endedAt: integer('ended_at'),
    /** What a live session is doing now: "thinking", "writing", "Bash: npm test", a retry line… (null when idle/ended). */
    activity: text('activity'),
    /** When the current run (turn or burst of turns) began: the tree's elapsed time counts from here. */
    runStartedAt: integer('run_started_at'),
    /** Why the session failed, one line (null unless failed). */
    error: text('error'),
    /** When the session entered the run queue (status queued): its FIFO order. */
    queuedAt: integer('queued_at'),
    /** The title the person gave it (`klaude rename`, the dashboard's key): shown instead of the first prompt; null: none given. */
    name: text('name'),
    /** When the person pinned it (`klaude pin`, the dashboard's key): pinned rows are listed first; null: not pinned. */
    pinnedAt: integer('pinned_at'),
    /** Spend limit in USD of this session and its sub-agents (`--budget`, `klaude budget`); null: none of its own. */
    budgetUsd: real('budget_usd'),
    /** The session whose conversation this one was forked from (`klaude fork`); null: not a fork. */
    forkedFrom: text('forked_from'),
    /** The session this one reviews (`klaude review`); null: not a review. Its findings are in `reviews`. */
    reviewOf: text('review_of'),
    /** Run-queue priority (core/priority.ts): 1 high, 0 normal, -1 low; the queue serves higher first. */
    priority: integer('priority').notNull().default(0),
    /** Order within its priority in the run queue (set when queued, changed by `klaude queue move`); lower first. */
    queueOrder: integer('queue_order'),
    /** How far along a live run is (core/progress.ts), kept by its runtime or an interactive claude's hook. */
    progress: text('progress', { mode: 'json' }).$type<ProgressRecord>(),
  },
  (t) => [
    index('sessions_status_queued_idx').on(t.status, t.queuedAt),
    index('sessions_project_created_idx').on(t.projectId, t.createdAt),
    /** The dashboard's change probe: count and max(updated_at) of one project from the index alone. */
    index('sessions_project_updated_idx').on(t.projectId, t.updatedAt),
    index('sessions_parent_idx').on(t.parentId),
    index('sessions_native_idx').on(t.nativeSessionId),
    index('sessions_instance_idx').on(t.instanceId),
    index('sessions_review_of_idx').on(t.reviewOf),
  ],
);

export const claudeSessionLinks = sqliteTable(
  'claude_session_links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    klaudeSessionId: text('klaude_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    claudeSessionId: text('claude_session_id').notNull().unique(),
    transcriptPath: text('transcript_path'),
    source: text('source').$type<LinkSource>().notNull(),
    startedAt: createdAt('started_at'),
    endedAt: integer('ended_at'),
    endReason: text('end_reason'),
  },
  (t) => [index('links_klaude_session_idx').on(t.klaudeSessionId, t.startedAt)],
);

export const runtimeProcess = sqliteTable(
  'runtime_process',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    klaudeSessionId: text('klaude_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').references(() => instances.id, { onDelete: 'set null' }),
    pid: integer('pid').notNull(),
    /** Start time when recorded (lib/process.ts processStartTime): pid + start time name the process for good (null: unknown). */
    pidStart: integer('pid_start'),
    /** The row of the process that owns this one (a 'cli' child's runtime); null: owned by its instance or none. */
    parentProcessId: integer('parent_process_id'),
    kind: text('kind', { enum: PROCESS_KINDS }).notNull(),
    startedAt: createdAt('started_at'),
    exitedAt: integer('exited_at'),
    exitCode: integer('exit_code'),
    signal: text('signal'),
    isCurrent: integer('is_current').notNull().default(0),
  },
  (t) => [
    index('process_session_current_idx').on(t.klaudeSessionId, t.isCurrent),
    index('process_instance_idx').on(t.instanceId),
  ],
);

/**
 * One writer per conversation: whoever is about to stop or start the process that writes a
 * session's conversation (checkout, dashboard Enter, talk, message/resume, start -c) holds its
 * claim first, taken in one IMMEDIATE transaction. A claim whose holder process is gone (pid +
 * start time) is void, so a crash never leaves a session locked.
 */
export const sessionClaims = sqliteTable('session_claims', {
  klaudeSessionId: text('klaude_session_id')
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  /** Who holds it, as told to a second taker: "a checkout in klaude pid 123". */
  holder: text('holder').notNull(),
  holderPid: integer('holder_pid').notNull(),
  holderStart: integer('holder_start'),
  createdAt: createdAt(),
});

export const events = sqliteTable(
  'events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: text('project_id').references(() => projects.id, { onDelete: 'cascade' }),
    klaudeSessionId: text('klaude_session_id').references(() => sessions.id, { onDelete: 'set null' }),
    kind: text('kind').notNull(),
    payload: text('payload', { mode: 'json' }).$type<unknown>(),
    createdAt: createdAt(),
  },
  (t) => [index('events_session_idx').on(t.klaudeSessionId, t.id), index('events_project_idx').on(t.projectId, t.id)],
);

export const agentUpdates = sqliteTable(
  'agent_updates',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The child that reported. */
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    /** The session the update is for (the child's parent at the time). */
    parentSessionId: text('parent_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    text: text('text').notNull(),
    /** null: an `[UPDATE]` the agent wrote; 'approval' / 'approval_parent': klaude's `[NEEDS APPROVAL]` note (who may answer). */
    kind: text('kind'),
    createdAt: createdAt(),
    acknowledgedAt: integer('acknowledged_at'),
  },
  (t) => [
    index('updates_parent_ack_idx').on(t.parentSessionId, t.acknowledgedAt),
    index('updates_session_idx').on(t.sessionId),
  ],
);

/** How a permission request ended: allowed (once or always), denied, or never answered. */
export const APPROVAL_ANSWERS = ['allow', 'allow_always', 'deny', 'timeout', 'cancelled'] as const;
export type ApprovalAnswer = (typeof APPROVAL_ANSWERS)[number];

/**
 * Permission requests of headless agents (claude `--permission-prompt-tool stdio`: a control_request
 * `can_use_tool`), pending until someone answers. The runtime inserts the row and writes the answer;
 * `answer IS NULL` = pending (the session is `waiting` meanwhile).
 */
export const approvals = sqliteTable(
  'approvals',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    /** The CLI's own request id (claude's control_request request_id). */
    requestId: text('request_id').notNull(),
    toolName: text('tool_name').notNull(),
    /** One line: the command, file path, pattern… (as in the log's tool lines). */
    summary: text('summary').notNull(),
    input: text('input', { mode: 'json' }).$type<unknown>(),
    /** The CLI's suggested permission updates, sent back as-is for "allow always". */
    suggestions: text('suggestions', { mode: 'json' }).$type<unknown>(),
    /** The rule "allow always" adds, readable: `Bash(npm test)`. */
    suggestedRule: text('suggested_rule'),
    reason: text('reason'),
    createdAt: createdAt(),
    answer: text('answer', { enum: APPROVAL_ANSWERS }),
    /** Deny reason shown to the model, or why it was cancelled. */
    answerMessage: text('answer_message'),
    /** 'person', 'parent', 'timeout' or 'runtime'. */
    answeredBy: text('answered_by'),
    answeredAt: integer('answered_at'),
  },
  (t) => [index('approvals_session_pending_idx').on(t.sessionId, t.answeredAt)],
);

/** Named answers to on-stop prompts (`agents.onStop`): one per session and name, the newest kept. */
export const artifacts = sqliteTable(
  'artifacts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    text: text('text').notNull(),
    /** Cost of the extra turn that produced it. */
    costUsd: real('cost_usd'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('artifacts_session_name_idx').on(t.sessionId, t.name)],
);

/** One row per headless agent, kept current while a turn runs: what resumes it if the run dies mid-turn. */
export const checkpoints = sqliteTable('checkpoints', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  /** Counts the turns of the session (each prompt sent). */
  turn: integer('turn').notNull().default(0),
  /** 1 while a turn runs (its `done` not yet seen). */
  inTurn: integer('in_turn').notNull().default(0),
  prompt: text('prompt'),
  /** One-line summaries of the tool calls made in this turn ("Bash: npm test"). */
  toolCalls: text('tool_calls', { mode: 'json' }).$type<string[]>(),
  /** Assistant text of this turn so far. */
  partialText: text('partial_text'),
  /** The turn already recovered once (recovery happens at most once per turn). */
  recoveredTurn: integer('recovered_turn'),
  /** `agents.recover: ask`: the run died mid-turn and waits for the person. */
  askCause: text('ask_cause'),
  updatedAt: createdAt('updated_at'),
});

/** A runtime's lowered run limit after it reported rate limiting (429, overloaded), until `until`. */
export const runtimeLimits = sqliteTable('runtime_limits', {
  runtime: text('runtime').primaryKey(),
  maxRunning: integer('max_running').notNull(),
  until: integer('until').notNull(),
  reason: text('reason'),
  updatedAt: createdAt('updated_at'),
});

/**
 * One row per event told outside the terminal (desktop, command, webhook): `event_key` names the
 * event (session, kind and the run or request it ended), so whichever process records the event
 * first inserts the row and tells, and any other that sees the same event finds it taken.
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: NOTIFY_KINDS }).notNull(),
    eventKey: text('event_key').notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [index('notifications_session_idx').on(t.sessionId)],
);

/**
 * One row per reviewer session (`klaude review`; its origin is the session's `review_of`): what it
 * reviews, and the findings read from its final answer when its run ends (the newest run's).
 */
export const reviews = sqliteTable('reviews', {
  sessionId: text('session_id')
    .primaryKey()
    .references(() => sessions.id, { onDelete: 'cascade' }),
  /** What of the origin it reviews: its diff, or its final answer. */
  subject: text('subject', { enum: REVIEW_SUBJECTS }).notNull(),
  /** What the person asked it to look at (`--focus`). */
  focus: text('focus'),
  /** The reviewer's one-sentence verdict. */
  summary: text('summary'),
  /** The findings read from its answer; null until a run of it ends with findings read. */
  findings: text('findings', { mode: 'json' }).$type<ReviewFinding[]>(),
  /** Why no findings were read (its run failed, or its answer held none we could read). */
  error: text('error'),
  /** When the findings were last sent to the origin as a message (`klaude review --send`). */
  sentAt: integer('sent_at'),
  createdAt: createdAt(),
  updatedAt: createdAt('updated_at'),
});

/**
 * What each completed run (status done) of a headless agent did: the basis of the progress
 * estimate of later runs of its type in its project (core/progress.ts, medians of the newest).
 */
export const runMeasures = sqliteTable(
  'run_measures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    sessionId: text('session_id').references(() => sessions.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    runtime: text('runtime').notNull(),
    toolCalls: integer('tool_calls').notNull(),
    outputChars: integer('output_chars').notNull(),
    durationMs: integer('duration_ms'),
    endedAt: createdAt('ended_at'),
  },
  (t) => [index('run_measures_type_idx').on(t.projectId, t.type, t.endedAt)],
);

export type ProjectRow = typeof projects.$inferSelect;
export type InstanceRow = typeof instances.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type NewSessionRow = typeof sessions.$inferInsert;
export type ClaudeLinkRow = typeof claudeSessionLinks.$inferSelect;
export type ProcessRow = typeof runtimeProcess.$inferSelect;
export type ClaimRow = typeof sessionClaims.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type UpdateRow = typeof agentUpdates.$inferSelect;
export type ApprovalRow = typeof approvals.$inferSelect;
export type ArtifactRow = typeof artifacts.$inferSelect;
export type CheckpointRow = typeof checkpoints.$inferSelect;
export type RuntimeLimitRow = typeof runtimeLimits.$inferSelect;
export type NotificationRow = typeof notifications.$inferSelect;
export type ReviewRow = typeof reviews.$inferSelect;
