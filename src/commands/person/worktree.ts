/**
 * `klaude worktree list|prune [id…] [--force] [--json]`: the worktrees of `--worktree` agents, and
 * removing those of finished agents (git/prune.ts). Unmerged work and ignored files are asked
 * about on a terminal; without one they are kept unless --force.
 */
import { createInterface } from 'node:readline/promises';
import { shortId } from '../../core/ids.js';
import { listSessions, type SessionRow } from '../../db/repos/sessions.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson } from '../../lib/escapes.js';
import { table } from '../../lib/format.js';
import { gitTopLevel } from '../../git/exec.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { findAgent } from '../../agent-ops/follow-agents.js';
import { worktreeLine, worktreeUsers } from '../../agent-ops/archive.js';
import { pruneWorktrees, someOf, worktreeState, type WorktreeInfo } from '../../git/prune.js';
import type { CommandContext } from '../cli/types.js';

async function ask(ctx: CommandContext, info: WorktreeInfo): Promise<boolean> {
  const s = info.session;
  const what: string[] = [];
  if (info.state === 'unmerged')
    what.push(
      info.dirty
        ? `${info.dirty} uncommitted file${info.dirty === 1 ? '' : 's'}`
        : `commits not merged into your branch`,
    );
  if (info.ignored.length > 0) what.push(`ignored files that are in no commit: ${someOf(info.ignored)}`);
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  try {
    const a = await rl.question(
      `${s.type} ${shortId(s.id)}'s worktree has ${what.join('; and ')} (${s.worktreeBranch}). Remove it and its branch anyway? [y/N] `,
    );
    return /^y(es)?$/i.test(a.trim());
  } finally {
    rl.close();
  }
}

export async function run(ctx: CommandContext): Promise<number> {
  const [sub, ...ids] = ctx.input;
  if (sub !== 'list' && sub !== 'prune')
    throw usageError(
      `unknown worktree subcommand '${sub ?? ''}'`,
      'klaude worktree list | klaude worktree prune [id…] [--force]',
    );
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const top = gitTopLevel(svc.projectRoot);
    if (!top)
      throw new KlaudeError(
        'E_NOT_GIT_REPO',
        `${svc.projectRoot} is not a git repository: there are no agent worktrees here`,
      );
    const sessions: SessionRow[] = ids.length
      ? ids.map((i) => findAgent(svc, i))
      : listSessions(svc.db, { projectId: svc.projectHash, includeArchived: true }).filter((s) => s.worktreeBranch);
    const json = ctx.flags.json === true;
    if (sub === 'list') {
      const rows = sessions
        .filter((s) => s.worktreeBranch)
        .map((s) => worktreeState(s, top))
        .filter((i) => i.state !== 'removed');
      if (json) {
        ctx.stdout.write(
          `${JSON.stringify({ worktrees: rows.map((i) => ({ sessionId: i.session.id, shortId: shortId(i.session.id), type: i.session.type, path: i.session.worktreePath, branch: i.session.worktreeBranch, base: i.session.worktreeBase, state: i.state, dirty: i.dirty, ignored: i.ignored })) })}\n`,
        );
      } else if (rows.length === 0) {
        ctx.stdout.write('no agent worktrees\n');
      } else {
        const notes = (i: (typeof rows)[number]): string =>
          [i.dirty ? `${i.dirty} uncommitted` : '', i.ignored.length ? `${i.ignored.length} ignored` : '']
            .filter(Boolean)
            .join(', ') || '-';
        ctx.stdout.write(
          table([
            ['ID', 'TYPE', 'STATE', 'FILES', 'BRANCH', 'PATH'],
            ...rows.map((i) => [
              shortId(i.session.id),
              i.session.type,
              i.state,
              notes(i),
              i.session.worktreeBranch ?? '',
              i.session.worktreePath ?? '',
            ]),
          ]),
        );
      }
      return 0;
    }
    const interactive = process.stdin.isTTY === true && !json;
    const results = await pruneWorktrees(sessions, top, {
      force: ctx.flags.force === true,
      confirm: interactive ? (i) => ask(ctx, i) : undefined,
      inUse: worktreeUsers(svc),
    });
    if (json) {
      ctx.stdout.write(`${safeJson({ results })}\n`);
    } else {
      if (results.length === 0) ctx.stdout.write('no agent worktrees to prune\n');
      for (const r of results) ctx.stdout.write(`${worktreeLine(r)}\n`);
    }
    return results.some((r) => r.action === 'kept' && (r.state === 'unmerged' || r.ignored || r.inUse)) ? 1 : 0;
  } finally {
    await closeAgentServices(svc);
  }
}
