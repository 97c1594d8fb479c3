/**
 * `klaude diff <id> [--stat] [--json]`: what an agent changed (git/session-diff.ts). The
 * patch goes to stdout (so it pipes into `git apply`), what it is a diff of goes to stderr.
 * On a terminal the patch's control characters are shown (`^[`), not acted on: the files are
 * the agent's; piped, the patch is byte for byte what git wrote.
 */
import { shortId } from '../../core/ids.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { findAgent, logPathOf } from '../../agent-ops/follow-agents.js';
import type { DiffFile, SessionDiff } from '../../git/session-diff.js';
import { agentDiff } from '../../zones/diff-merge.js';
import { safeJson, safeText, visibleControls } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';

const COLOURS: [RegExp, string][] = [
  [/^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename )/, '\x1b[1m'],
  [/^@@/, '\x1b[36m'],
  [/^\+/, '\x1b[32m'],
  [/^-/, '\x1b[31m'],
];

/** A patch for a terminal: its controls shown (see visibleControls), then coloured. */
export function colourPatch(patch: string): string {
  return visibleControls(patch)
    .split('\n')
    .map((l) => {
      const c = COLOURS.find(([re]) => re.test(l));
      return c ? `${c[1]}${l}\x1b[0m` : l;
    })
    .join('\n');
}

export function statLines(files: DiffFile[]): string[] {
  const paths = files.map((f) => safeText(f.path));
  const width = Math.min(60, Math.max(0, ...paths.map((p) => p.length)));
  const lines = files.map((f, i) => {
    const counts = f.added === null ? 'binary' : `+${f.added} -${f.deleted}`;
    return ` ${paths[i]!.padEnd(width)} | ${counts}${f.status === 'modified' ? '' : ` (${f.status})`}`;
  });
  const add = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const del = files.reduce((n, f) => n + (f.deleted ?? 0), 0);
  lines.push(
    ` ${files.length} file${files.length === 1 ? '' : 's'} changed, ${add} insertion${add === 1 ? '' : 's'}(+), ${del} deletion${del === 1 ? '' : 's'}(-)`,
  );
  return lines;
}

export function diffHeading(d: SessionDiff, label: string): string {
  if (d.kind === 'worktree')
    return `${label}: branch ${d.branch} against ${d.base.slice(0, 10)}, uncommitted work included (${d.top})${d.note ? ` — ${d.note}` : ''}`;
  return `${label}: ${d.note ?? 'shared tree'}`;
}

export async function run(ctx: CommandContext): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const s = findAgent(svc, ctx.input[0]!);
    const stat = ctx.flags.stat === true;
    const d = await agentDiff(svc, s, { projectRoot: svc.projectRoot, logPath: logPathOf(svc, s), patch: !stat });
    if (ctx.flags.json === true) {
      const { patch, ...rest } = d;
      ctx.stdout.write(`${safeJson({ ...rest, shortId: shortId(s.id), ...(stat ? {} : { patch }) })}\n`);
      return 0;
    }
    ctx.stderr.write(`${safeText(diffHeading(d, `${s.type} ${shortId(s.id)}`))}\n`);
    if (d.files.length === 0) {
      ctx.stderr.write('no changes\n');
      return 0;
    }
    if (stat) ctx.stdout.write(`${statLines(d.files).join('\n')}\n`);
    else ctx.stdout.write(ctx.stdout.isTTY ? colourPatch(d.patch) : d.patch);
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}
