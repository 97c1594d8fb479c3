/**
 * `klaude sessions [-v] [--all] [--json]`: this project's sessions as a tree. DB only (no log is
 * read), one listing query, and no drizzle unless a dead process needs reconciling.
 */
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import { buildTree, flattenTree, pruneTree, type TreeNode } from '../core/tree.js';
import type { HasSqlite } from '../db/connection.js';
import { openFastDb } from '../db/fast.js';
import { hasDeadProcesses, listSessionRows, type SessionListRow } from '../db/repos/listing.js';
import { artifactMaps } from '../db/repos/artifacts.js';
import { age } from '../lib/format.js';
import { formatCost, truncate } from '../logs/format.js';
import { exitQuietlyOnBrokenPipe } from './output.js';
import type { CommandContext } from './types.js';

/** Without --all, sessions that ended longer ago than this are hidden (unless a shown session is under them). */
export const HIDE_ENDED_AFTER_MS = 7 * 24 * 3600 * 1000;

export interface SessionJson extends SessionListRow {
  shortId: string;
  /** On-stop artifacts (`agents.onStop`) by name. */
  artifacts: Record<string, string>;
  children: SessionJson[];
}

async function openForListing(ctx: CommandContext, home: string, hash: string): Promise<{ db: HasSqlite & { close(): void } }> {
  const fast = openFastDb(home);
  if (fast && !hasDeadProcesses(fast, hash)) return { db: fast };
  fast?.close();
  // Missing or old DB, or a process died: the full client migrates and reconcile marks the dead.
  const [{ openDb }, { reconcile }] = await Promise.all([import('../db/client.js'), import('../recovery/reconcile.js')]);
  const db = openDb(home);
  try {
    const { sessionsEnded, lostProcesses } = reconcile(db, { projectId: hash });
    // Runs cut off mid-turn are recovered (`agents.recover`), and dead runs' slots go to the queue.
    if (sessionsEnded.length || lostProcesses) {
      const [{ recoverAfterReconcile }, { loadConfig }, { currentInvocation }] = await Promise.all([
        import('../runtimes/recover.js'),
        import('../config/config.js'),
        import('../claude/shim.js'),
      ]);
      const svc = { home, config: loadConfig(home).config, db, projectRoot: projectRoot(ctx.cwd), projectHash: hash, env: ctx.env, inv: currentInvocation(), instanceId: null };
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
  const first = oneLine(r.prompt) || oneLine(r.title);
  const last = oneLine(r.lastText);
  if (first && last) return `${truncate(first, 48)} → ${truncate(last, 64)}`;
  return truncate(first || last, 100);
}

/** Pad every column but the last (cells are ids, statuses, types: one UTF-16 unit per character). */
function renderRows(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
  return rows.map((r) => {
    let line = '';
    for (let i = 0; i < r.length - 1; i++) line += r[i]! + ' '.repeat(widths[i]! - r[i]!.length + 2);
    return (line + r[r.length - 1]!).trimEnd();
  });
}

function toJson(n: TreeNode<SessionListRow>, artifacts: Map<string, Record<string, string>>): SessionJson {
  return { ...n.item, shortId: shortId(n.item.id), artifacts: artifacts.get(n.item.id) ?? {}, children: n.children.map((c) => toJson(c, artifacts)) };
}

/** The STATUS cell: the status, the queue place, and a lowered (rate-limited) run limit of the runtime. */
function statusCell(r: SessionListRow): string {
  let cell = r.status === 'queued' && r.queuePosition ? `queued #${r.queuePosition}` : r.status;
  if (r.rateLimitMax !== null && (r.status === 'queued' || r.status === 'running' || r.status === 'pending')) cell += ` (rate-limited: ${r.runtime} max ${r.rateLimitMax})`;
  return cell;
}

export async function run(ctx: CommandContext): Promise<number> {
  exitQuietlyOnBrokenPipe(ctx.stdout);
  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const all = ctx.flags.all === true;
  const verbose = ctx.flags.verbose === true;
  const { db } = await openForListing(ctx, home, hash);
  let rows: SessionListRow[];
  let artifacts = new Map<string, Record<string, string>>();
  try {
    rows = listSessionRows(db, { projectId: hash, includeArchived: all, detail: verbose || ctx.flags.json ? 'full' : 'brief' });
    if (ctx.flags.json) artifacts = artifactMaps(db, rows.map((r) => r.id));
  } finally {
    db.close();
  }

  const now = Date.now();
  const recent = (r: SessionListRow): boolean =>
    !isTerminal(r.status) || now - (r.endedAt ?? r.updatedAt) < HIDE_ENDED_AFTER_MS;
  const full = buildTree(rows);
  const { roots, dropped } = all ? { roots: full, dropped: 0 } : pruneTree(full, recent);

  if (ctx.flags.json) {
    ctx.stdout.write(`${JSON.stringify(roots.map((n) => toJson(n, artifacts)), null, 2)}\n`);
    return 0;
  }
  const hidden = dropped > 0 ? `${dropped} session${dropped === 1 ? '' : 's'} ended over 7 days ago hidden (--all shows them)\n` : '';
  if (roots.length === 0) {
    ctx.stdout.write(`${hidden}no sessions in this project${all || hidden ? '' : ' (--all includes archived ones)'}\n`);
    return 0;
  }

  const flat = flattenTree(roots);
  const out: string[][] = [['ID', 'STATUS', 'TYPE', 'RUNTIME', 'AGE', 'FIRST → LAST MESSAGE']];
  for (const { item: r, prefix } of flat) {
    out.push([`${prefix}${shortId(r.id)}`, statusCell(r), r.type, r.runtime, age(r.createdAt, now), message(r)]);
  }
  const rendered = renderRows(out);
  const lines: string[] = [rendered[0]!];
  flat.forEach(({ item: r, continuation }, i) => {
    lines.push(rendered[i + 1]!);
    if (!verbose) return;
    // A detail line under each session: Claude (native) id, model, pid, cost, log.
    const d = [`${r.runtime} id ${r.nativeSessionId ?? '-'}`];
    if (r.model) d.push(`model ${r.model}`);
    d.push(`pid ${r.pid ?? '-'}`, `cost ${r.costUsd !== null ? formatCost(r.costUsd) : '-'}`, `log ${r.logPath ?? '-'}`);
    lines.push(`${continuation}${d.join('  ')}`);
  });
  const width = ctx.stdout.isTTY && ctx.stdout.columns ? ctx.stdout.columns : 0;
  const body = (width > 20 ? lines.map((l) => truncate(l, width)) : lines).join('\n');
  ctx.stdout.write(`${body}\n${hidden}`);
  return 0;
}
