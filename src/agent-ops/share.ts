/**
 * `klaude start --share`: hand the new agent the recent conversation of the session that starts
 * it. Read from the parent's Claude transcript (JSONL, docs/cli-facts.md §2.6): the last
 * SHARE_TURNS user/assistant messages with text (tool calls, tool results and hook noise left out),
 * each clipped, newest kept when the whole exceeds SHARE_MAX_CHARS. Only the file's tail is read.
 * The block is appended to the agent's prompt.
 */
import { open } from 'node:fs/promises';
import { shortId } from '../core/ids.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import type { AgentServices } from './context.js';

export const SHARE_TURNS = 12;
export const SHARE_MAX_CHARS = 12_000;
const PER_MESSAGE_MAX = 2_000;
const TAIL_BYTES = 1024 * 1024;

type Json = Record<string, unknown>;
const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

interface Turn {
  role: 'user' | 'assistant';
  text: string;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Json => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

const NOISE =
  /<system-reminder>[\s\S]*?<\/system-reminder>|<command-[a-z-]+>[\s\S]*?<\/command-[a-z-]+>|<local-command-[a-z-]+>[\s\S]*?<\/local-command-[a-z-]+>/g;

/** The user/assistant text messages of transcript lines, in order. */
export function transcriptTurns(lines: Iterable<string>): Turn[] {
  const turns: Turn[] = [];
  for (const line of lines) {
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObj(o) || (o.type !== 'user' && o.type !== 'assistant') || o.isMeta === true || o.isSidechain === true)
      continue;
    const msg = o.message;
    if (!isObj(msg)) continue;
    const text = textOf(msg.content).replace(NOISE, '').trim();
    if (text === '' || text.startsWith('[Request interrupted')) continue;
    const role = o.type;
    const prev = turns.at(-1);
    // One assistant message is written as one line per content block: join them.
    if (prev && prev.role === role && role === 'assistant') prev.text = `${prev.text}\n${text}`;
    else turns.push({ role, text });
  }
  return turns;
}

export function formatShareBlock(turns: Turn[], label: string): string | null {
  const picked: string[] = [];
  let total = 0;
  for (const t of turns.slice(-SHARE_TURNS).reverse()) {
    const body = t.text.length > PER_MESSAGE_MAX ? `${t.text.slice(0, PER_MESSAGE_MAX)} …[cut]` : t.text;
    const entry = `${t.role}: ${body}`;
    if (total + entry.length > SHARE_MAX_CHARS && picked.length > 0) break;
    picked.push(entry);
    total += entry.length;
  }
  if (picked.length === 0) return null;
  return [
    '<parent-context>',
    `Recent conversation of ${label}, which started you (oldest first; tool calls left out):`,
    ...picked.reverse(),
    '</parent-context>',
  ].join('\n\n');
}

/** Last lines of a file, reading at most TAIL_BYTES from its end (the first, partial line dropped). */
async function tailLines(file: string): Promise<string[]> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift();
    return lines.filter((l) => l.trim() !== '');
  } finally {
    await fh.close();
  }
}

/** The share block for a transcript file, or null when it is missing or has no text messages. */
export async function shareContextFrom(transcript: string, label: string): Promise<string | null> {
  let lines: string[];
  try {
    lines = await tailLines(transcript);
  } catch {
    return null;
  }
  return formatShareBlock(transcriptTurns(lines), label);
}

/** Parent's transcript for --share: its recorded path, else where Claude keeps it for the parent's cwd. */
function parentTranscript(svc: AgentServices, parent: SessionRow): string | null {
  if (parent.transcriptPath) return parent.transcriptPath;
  if (!parent.nativeSessionId || parent.runtime !== 'claude') return null;
  const cwd = launchMetadata(parent)?.cwd ?? svc.projectRoot;
  return claudeTranscriptPath(cwd, parent.nativeSessionId, svc.env);
}

/** --share: the parent's recent conversation, or null with a note saying why there is none. */
export async function sharedContext(
  svc: AgentServices,
  parent: SessionRow | null,
  notes: string[],
): Promise<string | null> {
  const transcript = parent ? parentTranscript(svc, parent) : null;
  const share = transcript ? await shareContextFrom(transcript, `session ${shortId(parent!.id)}`) : null;
  if (!share) {
    notes.push(
      parent
        ? `--share: no conversation found for ${shortId(parent.id)}; started without shared context`
        : '--share: no parent session; started without shared context',
    );
  }
  return share;
}
