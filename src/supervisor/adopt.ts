/**
 * `klaude --resume <claude session id>` of a conversation klaude never recorded (plain `claude`,
 * another tool): when the project's Claude transcripts hold it (the directory claude runs in, as
 * claude itself looks), it is adopted as a new top-level session pointing at that conversation,
 * so the supervisor resumes it like any of its own. A conversation already linked to a klaude
 * session is never adopted twice (that session is the one to resume).
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { claudeTranscriptPath } from '../claude/transcript.js';
import { tx } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { linkOwner } from '../db/repos/hook-records.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { createSession, getSession, type SessionRow } from '../db/repos/sessions.js';
import type { SupervisorContext } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How much of a transcript is read for its first prompt (the title of the adopted row). */
const HEAD_BYTES = 256 * 1024;

/** The adopted session, or null when `id` is no Claude conversation of this directory (or is klaude's already). */
export function adoptConversation(ctx: SupervisorContext, id: string): SessionRow | null {
  const claudeId = id.trim().toLowerCase();
  if (!UUID.test(claudeId) || linkOwner(ctx.db, claudeId)) return null;
  const file = claudeTranscriptPath(ctx.cwd, claudeId, ctx.env);
  if (!existsSync(file)) return null;
  const prompt = firstPrompt(file);
  return tx(ctx.db, () => {
    const s = createSession(ctx.db, {
      projectId: ctx.projectHash,
      type: 'tui',
      runtime: 'claude',
      status: 'idle',
      prompt: prompt?.slice(0, 2000) ?? null,
      title: prompt?.split('\n')[0]!.slice(0, 120) ?? null,
    });
    linkClaudeSession(ctx.db, {
      klaudeSessionId: s.id,
      claudeSessionId: claudeId,
      transcriptPath: file,
      source: 'adopted',
    });
    addEvent(ctx.db, {
      projectId: ctx.projectHash,
      klaudeSessionId: s.id,
      kind: 'session.adopted',
      payload: { claudeSessionId: claudeId },
    });
    return getSession(ctx.db, s.id)!;
  });
}

/** The first prompt typed in a transcript (docs/transcript-format.md: a `user` line whose content is a string). */
export function firstPrompt(file: string): string | null {
  let text: string;
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    text = buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"user"')) continue;
    try {
      const o = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
      const c = o.type === 'user' ? o.message?.content : undefined;
      if (typeof c === 'string' && c.trim() !== '' && !c.startsWith('<')) return c.trim();
    } catch {
      // a line cut by HEAD_BYTES, or not JSON
    }
  }
  return null;
}
