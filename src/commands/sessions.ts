/**
 * `klaude sessions [-v] [--all] [--projects] [--json]`: this project's (or every project's) sessions as a tree. DB only (no log is
 * read), one listing query, and no drizzle unless a dead process needs reconciling.
 */
import path from 'node:path';
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { byPin } from '../core/session-title.js';
import { isTerminal } from '../core/status.js';
import { buildTree, flattenTree, pruneTree, type TreeNode } from '../core/tree.js';
import type { HasSqlite } from '../db/connection.js';
import { openFastDb } from '../db/fast.js';
import { pendingApprovalsOf, type ApprovalRow } from '../db/repos/approvals.js';
import {
  hasDeadProcesses,
  listSessionRows,
  liveProcessesOfProject,
  projectsWithSessions,
  type LiveProcesses,
  type SessionListRow,
} from '../db/repos/listing.js';
import { age, elapsed } from '../lib/format.js';
import { artifactMaps } from '../db/repos/artifacts.js';
import { safeJson, safeText } from '../lib/escapes.js';
import { formatCost, truncate } from '../logs/format.js';
import { approvalCell, fitLastCell } from './approval-cell.js';
import { exitQuietlyOnBrokenPipe } from './output.js';
import type { CommandContext } from './types.js';

/** Without --all, sessions that ended longer ago than this are hidden (unless a shown session is under them). */
export const HIDE_ENDED_AFTER_MS = 7 * 24 * 3600 * 1000;

/** A pending permission request as `sessions --json` shows it. */
export interface ApprovalJson {
  id: number;
  requestId: string;
  tool: string;
  /** The command, file path… */
  summary: string;
  input: unknown;
  reason: string | null;
  /** What `klaude approve --always` adds, e.g. `Bash(npm test)`. */
  rule: string | null;
  createdAt: number;
}

export interface SessionJson extends SessionListRow {
  shortId: string;
  /** The oldest pending permission request (the session is `waiting` on it), else null. */
  approval: ApprovalJson | null;
  pendingApprovals: number;
  /** On-stop artifacts (`agents.onStop`) by name. */
  artifacts: Record<string, string>;
  children: SessionJson[];
}

async function openForListing(
  ctx: CommandContext,
  home: string,
  hash: string,
  root = projectRoot(ctx.cwd),
): Promise<{ db: HasSqlite & { close(): void } }> {
  const fast = openFastDb(home);
  if (fast && !hasDeadProcesses(fast, hash)) return { db: fast };
  fast?.close();
  // Missing or old DB, or a process died: the full client migrates and reconcile marks the dead.
  const [{ openDb }, { reconcile }] = await Promise.all([
    import('../db/client.js'),
    import('../ownership/reconcile.js'),
  ]);
  const db = openDb(home);
  try {
    const { sessionsEnded, lostProcesses } = reconcile(db, { projectId: hash });
    // Runs cut off mid-turn are recovered (`agents.recover`), and dead runs' slots go to the queue.
    if (sessionsEnded.length || lostProcesses) {
      const [{ recoverAfterReconcile }, { loadConfig }, { currentInvocation }] = await Promise.all([
        import('../agent-ops/recover.js'),
        import('../config/config.js'),
        import('../claude/shim.js'),
      ]);
      const svc = {
        home,
        config: loadConfig(home).config,
        db,
        projectRoot: root,
        projectHash: hash,
        env: ctx.env,
        inv: currentInvocation(),
        instanceId: null,
      };
      await recoverAfterReconcile(svc, sessionsEnded);
    }
  } catch (e) {
    db.close();
    throw e;
  }
  return { db };
}

/** First `max` characters on one line (cut first: prompts can be long). */
function oneLine(s: string | null | undefined, max = 100): string {
  if (!s) return '';
  const cut = s.length > max ? s.slice(0, max) : s;
  return (cut.includes('\n') || cut.includes('\r') || cut.includes('\t') ? cut.replace(/\s+/g, ' ') : cut).trim();
}

function message(r: SessionListRow): string {
  // The person's title (`klaude rename`) replaces the prompt; `-v` and `--json` keep the prompt.
  const first = oneLine(r.name) || oneLine(r.prompt) || oneLine(r.title);
  const last = oneLine(r.lastText);
  const fork = r.forkedFrom ? `forked from ${shortId(r.forkedFrom)}: ` : '';
  if (first && last) return `${fork}${truncate(first, 48)} → ${truncate(last, 64)}`;
  return fork + truncate(first || last, 100);
}

/**
 * What a session is doing: a running one's elapsed time and activity ("1m12s Bash: npm test"),
 * a failed one's reason (or an idle one's, when its last interactive turn failed). Empty otherwise.
 */
export function activityCell(
  r: Pick<SessionListRow, 'status' | 'activity' | 'runStartedAt' | 'updatedAt' | 'error'>,
  now: number,
): string {
  if (r.status === 'failed') return truncate(oneLine(r.error) || 'failed', 60);
  if (r.status === 'idle' && r.error) return truncate(`✗ ${oneLine(r.error)}`, 60);
  if (r.status !== 'running' && r.status !== 'waiting') return '';
  const since = elapsed(now - (r.runStartedAt ?? r.updatedAt));
  return truncate(`${since} ${oneLine(r.activity) || (r.status === 'waiting' ? 'waiting' : 'working')}`, 72);
}

/** Width when stdout is not a terminal (a pipe, Claude's Bash tool): rows a reader can take whole. */
const PIPE_WIDTH = 100;

/** The terminal's width; in a pipe `COLUMNS` when set, else PIPE_WIDTH (claude wraps longer rows mid-word). */
function listingWidth(ctx: CommandContext): number {
  if (ctx.stdout.isTTY) return ctx.stdout.columns ?? 0;
  const cols = Number(ctx.env.COLUMNS);
  return Number.isInteger(cols) && cols > 20 ? cols : PIPE_WIDTH;
}

/**
 * Pad every column but the last (cells are ids, statuses, types: one UTF-16 unit per character).
 * Cells are made safe to print: prompts, titles, texts, errors and activities are the agents'.
 */
function renderRows(cells: string[][]): string[] {
  const rows = cells.map((r) => r.map(safeText));
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
  return rows.map((r) => {
    let line = '';
    for (let i = 0; i < r.length - 1; i++) line += r[i]! + ' '.repeat(widths[i]! - r[i]!.length + 2);
    return (line + r[r.length - 1]!).trimEnd();
  });
}

const approvalJson = (a: ApprovalRow): ApprovalJson => ({
  id: a.id,
  requestId: a.requestId,
  tool: a.toolName,
  summary: a.summary,
  input: a.input,
  reason: a.reason,
  rule: a.suggestedRule,
  createdAt: a.createdAt,
});

function toJson(
  n: TreeNode<SessionListRow>,
  approvals: Map<string, ApprovalRow[]>,
  artifacts: Map<string, Record<string, string>>,
): SessionJson {
  const mine = approvals.get(n.item.id) ?? [];
  // The row itself gets the added fields (it is this listing's own, fresh from the query): copying
  // a thousand rows of thirty fields each was a tenth of `sessions --json`. Same keys, same order.
  const out = n.item as SessionJson;
  out.shortId = shortId(n.item.id);
  out.approval = mine[0] ? approvalJson(mine[0]) : null;
  out.pendingApprovals = mine.length;
  out.artifacts = artifacts.get(n.item.id) ?? {};
  out.children = n.children.map((c) => toJson(c, approvals, artifacts));
  return out;
}

/**
 * The STATUS cell: the status, the queue place, a lowered (rate-limited) run limit of the runtime,
 * and where a session is open right now (`idle · pty`: talk's PTY host; `· open`: a klaude foreground); `· pinned`.
 */
function statusCell(r: SessionListRow, p: LiveProcesses | undefined): string {
  return r.pinnedAt !== null ? `${placeCell(r, p)} · pinned` : placeCell(r, p);
}

function placeCell(r: SessionListRow, p: LiveProcesses | undefined): string {
  const queued = r.queuedFor ? `queued: ${r.queuedFor}` : `queued #${r.queuePosition}`;
  let cell = r.status === 'queued' && r.queuePosition ? queued : r.status;
  if (r.rateLimitMax !== null && (r.status === 'queued' || r.status === 'running' || r.status === 'pending'))
    cell += ` (rate-limited: ${r.runtime} max ${r.rateLimitMax})`;
  if (p?.pty) return `${cell} · pty`;
  if (p?.claude && r.type !== 'tui') return `${cell} · open`;
  return cell;
}

/** What the listing shows, read in one go so the DB is closed before anything is printed. */
interface Listing {
  rows: SessionListRow[];
  approvals: Map<string, ApprovalRow[]>;
  live: Map<string, LiveProcesses>;
  artifacts: Map<string, Record<string, string>>;
}

function readListing(
  db: HasSqlite & { close(): void },
  hash: string,
  opts: { all: boolean; verbose: boolean; json: boolean },
): Listing {
  try {
    const rows = listSessionRows(db, {
      projectId: hash,
      includeArchived: opts.all,
      detail: opts.verbose || opts.json ? 'full' : 'brief',
    });
    const approvals = pendingApprovalsOf(
      db,
      rows.filter((r) => r.status === 'waiting').map((r) => r.id),
    );
    const live = liveProcessesOfProject(db, hash);
    const artifacts = opts.json
      ? artifactMaps(
          db,
          rows.map((r) => r.id),
        )
      : new Map<string, Record<string, string>>();
    return { rows, approvals, live, artifacts };
  } finally {
    db.close();
  }
}

/** The trees to show, newest root first, and how many ended sessions were left out. */
function visibleRoots(l: Listing, all: boolean, now: number): { roots: TreeNode<SessionListRow>[]; dropped: number } {
  const recent = (r: SessionListRow): boolean =>
    !isTerminal(r.status) || now - (r.endedAt ?? r.updatedAt) < HIDE_ENDED_AFTER_MS;
  // A session open in `klaude talk` (a live PTY host) is shown whatever its age.
  const recentOrLive = (r: SessionListRow): boolean => recent(r) || l.live.has(r.id);
  const full = buildTree(l.rows);
  const pruned = all ? { roots: full, dropped: 0 } : pruneTree(full, recentOrLive);
  // Newest root first, as the dashboard shows them (sub-agents stay in the order they started);
  // pinned ones first among their siblings.
  return { roots: pinnedFirst([...pruned.roots].reverse()), dropped: pruned.dropped };
}

function pinnedFirst(nodes: TreeNode<SessionListRow>[]): TreeNode<SessionListRow>[] {
  for (const n of nodes) if (n.children.length) n.children = pinnedFirst(n.children);
  return nodes.some((n) => n.item.pinnedAt !== null) ? nodes.sort((a, b) => byPin(a.item, b.item)) : nodes;
}

/**
 * One table line per session (a pending approval replaces its messages), plus with -v a detail
 * line under each; in `width` columns (0: any), the cell of a pending approval wrapped, the rest cut.
 */
function tableLines(
  roots: TreeNode<SessionListRow>[],
  l: Listing,
  o: { verbose: boolean; now: number; width: number },
): string[] {
  const { verbose, now } = o;
  const flat = flattenTree(roots);
  const out: string[][] = [['ID', 'STATUS', 'TYPE', 'RUNTIME', 'AGE', 'ACTIVITY', 'TITLE → LAST MESSAGE']];
  for (const { item: r, prefix } of flat) {
    const asks = l.approvals.get(r.id)?.[0];
    const what = asks ? approvalCell(asks, r.id) : message(r);
    out.push([
      `${prefix}${shortId(r.id)}`,
      statusCell(r, l.live.get(r.id)),
      r.type === 'tui' ? 'claude' : r.type, // the interactive root: one name everywhere
      r.runtime,
      age(r.createdAt, now),
      activityCell(r, now),
      what,
    ]);
  }
  const rendered = renderRows(out);
  const fit = (line: string): string => (o.width > 20 ? truncate(line, o.width) : line);
  const lastColumn = rendered[0]!.indexOf('TITLE');
  const lines: string[] = [fit(rendered[0]!)];
  flat.forEach(({ item: r, continuation }, i) => {
    const row = rendered[i + 1]!;
    if (o.width > 20 && l.approvals.has(r.id)) lines.push(...fitLastCell(row, lastColumn, o.width, continuation));
    else lines.push(fit(row));
    if (verbose) lines.push(fit(`${continuation}${safeText(detailLine(r))}`));
  });
  return lines;
}

/** A detail line under each session: Claude (native) id, model, pid, cost, worktree branch, log. */
function detailLine(r: SessionListRow): string {
  const d = [`${r.runtime} id ${r.nativeSessionId ?? '-'}`];
  if (r.model) d.push(`model ${r.model}`);
  d.push(`pid ${r.pid ?? '-'}`, `cost ${r.costUsd !== null ? formatCost(r.costUsd) : '-'}`);
  if (r.worktreeBranch) d.push(`branch ${r.worktreeBranch}`);
  d.push(`log ${r.logPath ?? '-'}`);
  if (r.name && r.prompt) d.push(`prompt ${truncate(oneLine(r.prompt), 80)}`);
  return d.join('  ');
}

export async function run(ctx: CommandContext): Promise<number> {
  exitQuietlyOnBrokenPipe(ctx.stdout);
  const home = klaudeHome(ctx.env);
  const all = ctx.flags.all === true;
  const verbose = ctx.flags.verbose === true;
  const json = ctx.flags.json === true;
  if (ctx.flags.projects === true) return everyProject(ctx, home, { all, verbose, json });
  const hash = projectHash(projectRoot(ctx.cwd));
  const { db } = await openForListing(ctx, home, hash);
  const listing = readListing(db, hash, { all, verbose, json });
  const now = Date.now();
  const { roots, dropped } = visibleRoots(listing, all, now);

  if (json) {
    ctx.stdout.write(
      `${safeJson(
        roots.map((n) => toJson(n, listing.approvals, listing.artifacts)),
        2,
      )}\n`,
    );
    return 0;
  }
  const hidden =
    dropped > 0
      ? `${dropped} session${dropped === 1 ? '' : 's'} ended over 7 days ago hidden (--all shows them)\n`
      : '';
  if (roots.length === 0) {
    ctx.stdout.write(`${hidden}no sessions in this project${all || hidden ? '' : ' (--all includes archived ones)'}\n`);
    return 0;
  }
  const lines = tableLines(roots, listing, { verbose, now, width: listingWidth(ctx) });
  ctx.stdout.write(`${lines.join('\n')}\n${hidden}`);
  return 0;
}

type ListOptions = { all: boolean; verbose: boolean; json: boolean };

/**
 * `--projects`: every project of this home, the most recently active first, each under a header
 * with its counts; before them, the sessions that need the person (waiting), whichever project.
 */
async function everyProject(ctx: CommandContext, home: string, opts: ListOptions): Promise<number> {
  const fast = openFastDb(home);
  const projects = fast ? projectsWithSessions(fast) : [];
  fast?.close();
  const now = Date.now();
  const shown: { id: string; root: string; listing: Listing; roots: TreeNode<SessionListRow>[] }[] = [];
  for (const p of projects) {
    const { db } = await openForListing(ctx, home, p.id, p.rootPath);
    const listing = readListing(db, p.id, opts);
    const { roots } = visibleRoots(listing, opts.all, now);
    if (roots.length) shown.push({ id: p.id, root: p.rootPath, listing, roots });
  }
  if (opts.json) {
    const out = shown.map((p) => ({
      id: p.id,
      root: p.root,
      sessions: p.roots.map((n) => toJson(n, p.listing.approvals, p.listing.artifacts)),
    }));
    ctx.stdout.write(`${safeJson({ projects: out }, 2)}\n`);
    return 0;
  }
  if (shown.length === 0) {
    ctx.stdout.write('no sessions in any project of this klaude home\n');
    return 0;
  }
  const count = (st: string): number =>
    shown.reduce((n, p) => n + p.listing.rows.filter((r) => r.status === st && r.archivedAt === null).length, 0);
  const out = [
    `${shown.length} project${shown.length === 1 ? '' : 's'} · ${count('running')} running · ${count('waiting')} waiting · ${count('queued')} queued`,
  ];
  const waiting = shown.flatMap((p) =>
    p.listing.rows
      .filter((r) => r.status === 'waiting')
      .map((r) => ({ p, r, ask: p.listing.approvals.get(r.id)?.[0] })),
  );
  if (waiting.length) {
    out.push('', 'needs you:');
    for (const { p, r, ask } of waiting) {
      const what = ask ? `needs approval: ${truncate(`${ask.toolName}: ${ask.summary}`, 60)}` : message(r);
      out.push(`  ${shortId(r.id)}  ${safeText(path.basename(p.root))}  ${r.type}  ${safeText(what)}`);
    }
  }
  for (const p of shown) {
    const live = p.listing.rows.filter((r) => !isTerminal(r.status) && r.archivedAt === null).length;
    out.push(
      '',
      `project ${safeText(p.root)} (${live} live)`,
      ...tableLines(p.roots, p.listing, { verbose: opts.verbose, now, width: 0 }),
    );
  }
  ctx.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
