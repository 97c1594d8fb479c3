/**
 * `klaude sessions [-v] [--all] [--projects] [--json]`: this project's (or every project's) sessions as a tree. DB only (no log is
 * read), one listing query, and no drizzle unless a dead process needs reconciling.
 */
import path from 'node:path';
import { klaudeHome, projectHash, projectRoot } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { byPin } from '../../core/session-title.js';
import { HIDE_ENDED_AFTER_MS, isTerminal } from '../../core/status.js';
import { buildTree, pruneTree, type TreeNode } from '../../core/tree.js';
import type { HasSqlite } from '../../db/connection.js';
import { openFastDb } from '../../db/fast.js';
import { pendingApprovalsOf, type ApprovalRow } from '../../db/repos/approvals.js';
import {
  hasDeadProcesses,
  listSessionRows,
  liveProcessesOfProject,
  projectsWithSessions,
  type LiveProcesses,
  type SessionListRow,
} from '../../db/repos/listing.js';
import { artifactMaps } from '../../db/repos/artifacts.js';
import { subtreeIds } from '../../db/repos/subtree.js';
import { SCOPE_ENV } from '../../sandbox/channel-paths.js';
import { reviewsOfProject, type ReviewView } from '../../db/repos/reviews.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { truncate } from '../../logs/format.js';
import { messageCell } from './sessions-cells.js';
import { toJson } from './sessions-json.js';
import { listingWidth, tableLines } from './sessions-table.js';
import type { CommandContext } from '../cli/types.js';
import { liveZoneNames } from '../../db/repos/zone-mirrors.js';

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
    import('../../db/client.js'),
    import('../../ownership/reconcile.js'),
  ]);
  const db = openDb(home);
  try {
    const { sessionsEnded, lostProcesses } = reconcile(db, { projectId: hash });
    // Runs cut off mid-turn are recovered (`agents.recover`), and dead runs' slots go to the queue.
    if (sessionsEnded.length || lostProcesses) {
      const [{ recoverAfterReconcile }, { loadConfig }, { currentInvocation }] = await Promise.all([
        import('../../agent-ops/recover.js'),
        import('../../config/config.js'),
        import('../../claude/shim.js'),
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

/** What the listing shows, read in one go so the DB is closed before anything is printed. */
interface Listing {
  rows: SessionListRow[];
  approvals: Map<string, ApprovalRow[]>;
  live: Map<string, LiveProcesses>;
  artifacts: Map<string, Record<string, string>>;
  /** Reviews (`klaude review`) by the session they review. */
  reviews: Map<string, ReviewView[]>;
}

function readListing(
  db: HasSqlite & { close(): void },
  hash: string,
  opts: { all: boolean; verbose: boolean; json: boolean; scope?: string | null },
): Listing {
  try {
    let rows = listSessionRows(db, {
      projectId: hash,
      includeArchived: opts.all,
      detail: opts.verbose || opts.json ? 'full' : 'brief',
    });
    // An agent's klaude (commands/agents/agent-scope.ts) lists the agent's own subtree.
    if (opts.scope) {
      const mine = subtreeIds(db, opts.scope);
      rows = rows.filter((r) => mine.has(r.id));
    }
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
    const reviews = reviewsOfProject(db, hash);
    return { rows, approvals, live, artifacts, reviews };
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

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  const all = ctx.flags.all === true;
  const verbose = ctx.flags.verbose === true;
  const json = ctx.flags.json === true;
  if (ctx.flags.projects === true) return everyProject(ctx, home, { all, verbose, json });
  const hash = projectHash(projectRoot(ctx.cwd));
  const { db } = await openForListing(ctx, home, hash);
  const zones = liveZoneNames(db);
  const listing = readListing(db, hash, { all, verbose, json, scope: ctx.env[SCOPE_ENV] });
  const now = Date.now();
  const { roots, dropped } = visibleRoots(listing, all, now);
  try {
    return printListing(ctx, listing, roots, dropped, { all, verbose, json, now });
  } finally {
    if (zones.length) await kickZones(ctx, home, zones);
  }
}

/** Zones with live agents here: their links try now if they wait out a backoff (docs/zones.md). */
async function kickZones(ctx: CommandContext, home: string, zones: string[]): Promise<void> {
  const [{ kickZone }, { loadConfig }, { currentInvocation }] = await Promise.all([
    import('../../zone-client/ask-link.js'),
    import('../../config/config.js'),
    import('../../claude/shim.js'),
  ]);
  const known = loadConfig(home).config.zones;
  const inv = currentInvocation();
  await Promise.all(zones.filter((z) => known[z]).map((zone) => kickZone({ home, env: ctx.env, inv, zone })));
}

function printListing(
  ctx: CommandContext,
  listing: Listing,
  roots: ReturnType<typeof visibleRoots>['roots'],
  dropped: number,
  o: { all: boolean; verbose: boolean; json: boolean; now: number },
): number {
  const { all, verbose, json, now } = o;

  if (json) {
    ctx.stdout.write(
      `${safeJson(
        roots.map((n) => toJson(n, listing)),
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
      sessions: p.roots.map((n) => toJson(n, p.listing)),
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
      const what = ask ? `needs approval: ${truncate(`${ask.toolName}: ${ask.summary}`, 60)}` : messageCell(r);
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
