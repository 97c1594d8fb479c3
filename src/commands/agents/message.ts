/**
 * `klaude message <id> "<prompt>" [-f]`: give a running agent its next message, or resume a
 * stopped one with it; -f (--wait) follows the reply like an attached start.
 */
import { statSync } from 'node:fs';
import type { AgentEvent } from '../../core/events.js';
import { shortId } from '../../core/ids.js';
import { getSession } from '../../db/repos/sessions.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { getAdapter } from '../../adapters/registry.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { detachOnSignals, detachedHint } from '../../agent-ops/follow-detach.js';
import { findAgent, followAgents, logPathOf } from '../../agent-ops/follow-agents.js';
import { deliverMessage } from '../../agent-ops/message.js';
import { assertTakesImages, keepImages, readImageFile, type IncomingImage } from '../../agent-ops/attachments.js';
import path from 'node:path';
import type { CommandContext } from '../cli/types.js';

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** `--image` files, read (checked when kept). */
function imageFlags(ctx: CommandContext): IncomingImage[] {
  const v = ctx.flags.image;
  const files = v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
  return files.map((f) => readImageFile(path.resolve(ctx.cwd, f)));
}

export async function run(ctx: CommandContext): Promise<number> {
  const [id, text] = ctx.input as [string, string | undefined];
  const prompt = text ?? '';
  const timeout = ctx.flags.timeout as number | undefined;
  if (timeout !== undefined && !(timeout > 0)) throw usageError('--timeout needs a positive number of seconds');
  const incoming = imageFlags(ctx);
  if (text === undefined && incoming.length === 0)
    throw usageError('klaude message needs a prompt (or an --image)', 'klaude message <id> "<prompt>"');
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const s = findAgent(svc, id);
    const before = getSession(svc.db, s.id)!;
    const file = logPathOf(svc, s);
    const offset = sizeOf(file);
    // Refused before anything is kept: a CLI that takes no images, then each image's kind and size.
    if (incoming.length > 0) await assertTakesImages(s);
    const d = await deliverMessage(svc, s.id, prompt, keepImages(svc.home, s, incoming));
    const short = shortId(s.id);
    if (ctx.flags.json === true) {
      ctx.stdout.write(
        `${JSON.stringify({ sessionId: s.id, shortId: short, delivered: d.delivered, pid: d.pid, nativeSessionId: d.nativeSessionId, ...(d.held ? { held: d.held } : {}) })}\n`,
      );
    } else if (d.held) {
      ctx.stdout.write(
        `held for ${short}: zone ${d.held} cannot be reached now; klaude delivers it (once) as soon as the link is back (\`klaude zone list\` shows the link)\n`,
      );
    } else if (d.delivered === 'stdin') {
      ctx.stdout.write(`sent to ${short} (running): it gets the message when its current turn ends\n`);
    } else if (d.delivered === 'queued') {
      const conv = d.nativeSessionId ? `its ${s.runtime} session ${d.nativeSessionId}` : `its ${s.runtime} session`;
      ctx.stdout.write(
        `queued for ${short} (running): ${s.runtime} takes no input while it runs, so when the current turn ends klaude resumes ${conv} in a new process with your message\n`,
      );
    } else if (d.delivered === 'recovering') {
      ctx.stdout.write(
        `${short} had crashed mid-turn (its run died): klaude is resuming it, and your message goes with the resume prompt\n`,
      );
    } else {
      const conv = d.nativeSessionId ? `its ${s.runtime} session ${d.nativeSessionId}` : 'it';
      // CLIs without streaming input get every message this way: say so.
      const streaming = (await getAdapter(s.runtime)).supportsStreamingInput;
      const how = streaming ? '' : ` in a new ${s.runtime} process (it takes no input while it runs)`;
      ctx.stdout.write(
        `${short} had stopped (${d.previousStatus ?? before.status}): resumed ${conv}${how} with your message\n`,
      );
    }
    // Held for a zone that cannot be reached: there is no reply to follow until the link is back.
    if (ctx.flags.wait !== true || d.held) {
      if (ctx.flags.json !== true) ctx.stdout.write(`${detachedHint([s])}\n`);
      return 0;
    }
    const detacher = detachOnSignals();
    const seconds = timeout ?? svc.config['wait.timeoutSeconds'];
    const timer = setTimeout(() => detacher.detach('timeout'), seconds * 1000);
    try {
      // Sent into a running turn: the reply starts where the runtime hands the message on (queued
      // messages may go on joined).
      const startAt =
        d.delivered === 'stdin' || d.delivered === 'queued'
          ? (e: AgentEvent) => e.type === 'user' && e.source === 'message' && e.text.includes(prompt)
          : undefined;
      const target = { session: s, offset: d.logOffset ?? offset, ...(startAt ? { startAt } : {}) };
      const [r] = await followAgents(svc, [target], ctx.stdout, { signal: detacher.signal });
      if (r && r.info) return r.info.status === 'done' ? 0 : 1;
      if (detacher.reason === 'timeout') {
        throw new KlaudeError('E_TIMEOUT', `no reply from ${short} within ${seconds}s (it is still working)`, {
          hint: `klaude wait ${short}`,
        });
      }
      ctx.stdout.write(`\ndetached (${detacher.reason}); ${short} keeps running.\n${detachedHint([s])}\n`);
      return 0;
    } finally {
      clearTimeout(timer);
      detacher.dispose();
    }
  } finally {
    await closeAgentServices(svc);
  }
}
