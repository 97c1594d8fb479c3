/**
 * `klaude interrupt <id…>`: stop the current turn of each agent, then report how each ended
 * (waiting a few seconds for the turn to close).
 */
import { shortId } from '../../core/ids.js';
import type { SessionRow } from '../../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../../lib/errors.js';
import { safeText } from '../../lib/escapes.js';
import { clip } from '../../core/tool-summary.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { findAgent, waitForAgents } from '../../agent-ops/follow-agents.js';
import { interruptAgent } from '../../agent-ops/message.js';
import type { CommandContext } from '../cli/types.js';

/** How long to wait for interrupted turns to end before reporting. */
const SETTLE_MS = 10_000;

/** What the interrupt dropped: the messages queued behind the turn, one line each (cut). */
function droppedLines(id: string, texts: string[]): string {
  const n = texts.length;
  const head = `${shortId(id)}: dropped ${n} queued message${n === 1 ? '' : 's'} (never sent; \`klaude message ${shortId(id)} "…"\` sends again):\n`;
  return head + texts.map((t) => `  > ${clip(safeText(t).replace(/\s*\n\s*/g, ' '), 100)}\n`).join('');
}

export async function run(ctx: CommandContext): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const sent: SessionRow[] = [];
    const dropped = new Map<string, string[]>();
    const failed: { input: string; error: KlaudeError }[] = [];
    for (const input of [...new Set(ctx.input)]) {
      try {
        const s = findAgent(svc, input);
        const r = await interruptAgent(svc, s.id);
        sent.push(s);
        if (r.dropped.length) dropped.set(s.id, r.dropped);
      } catch (e) {
        if (!isKlaudeError(e)) throw e;
        failed.push({ input, error: e });
      }
    }
    if (failed.length > 0 && sent.length === 0 && failed.length === 1) throw failed[0]!.error;
    const settled = sent.length
      ? await waitForAgents(svc, sent, { timeoutMs: SETTLE_MS })
      : { finished: [], running: [], timedOut: false };
    if (ctx.flags.json === true) {
      ctx.stdout.write(
        `${JSON.stringify({
          results: [
            ...[...settled.finished, ...settled.running].map((s) => ({
              sessionId: s.id,
              ok: true,
              status: s.status,
              droppedMessages: dropped.get(s.id) ?? [],
            })),
            ...failed.map((f) => ({ input: f.input, ok: false, code: f.error.code, message: f.error.message })),
          ],
        })}\n`,
      );
    } else {
      for (const s of settled.finished) ctx.stdout.write(`${shortId(s.id)} ${s.status}\n`);
      for (const [id, texts] of dropped) ctx.stdout.write(droppedLines(id, texts));
      for (const s of settled.running) {
        ctx.stdout.write(
          `${shortId(s.id)} interrupt sent; still ${s.status} (it goes on with queued messages, or is slow to stop)\n`,
        );
      }
      for (const f of failed) {
        ctx.stderr.write(
          `klaude: ${safeText(f.error.message)} [${f.error.code}]${f.error.hint ? ` — hint: ${safeText(f.error.hint)}` : ''}\n`,
        );
      }
    }
    return failed.length > 0 ? 1 : 0;
  } finally {
    await closeAgentServices(svc);
  }
}
