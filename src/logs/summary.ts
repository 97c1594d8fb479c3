/**
 * Completion info: what an agent's log says about how it ended, and the short plain block shown
 * at the end of an attached `klaude start` and by `klaude logs -s` (Claude reads it).
 */
import path from 'node:path';
import type { AgentEvent, EventOf } from '../core/events.js';
import type { SessionStatus } from '../core/status.js';
import { safeText } from '../lib/escapes.js';
import { formatCost, formatDuration } from './format.js';

export interface CompletionInfo {
  /** From the last `done` event; else the last `status` event; else 'running' when the log has events, 'pending' when empty. */
  status: SessionStatus;
  /**
   * Files changed: what git saw change during the runs (the `done` events' lists, so Bash-written
   * files count), plus successful Edit/MultiEdit/NotebookEdit calls (and Write over a file already
   * touched), in first-touch order.
   */
  filesEdited: string[];
  /** Files created: new in git's view during a run, plus Write calls on files not touched before. Where git and the tool calls disagree, git wins. */
  filesCreated: string[];
  /** The last `done` event's final text, else the last assistant text; null when none. */
  finalText: string | null;
  /** The last `done` event's error, else the last `error` event after the last `done`. */
  error: string | null;
  /** Of the last `done` (its run), else the sum of `usage` costs; null when unknown. */
  costUsd: number | null;
  durationMs: number | null;
  numTurns: number | null;
  /** `[UPDATE]` texts reported, oldest first. */
  updates: string[];
  /** Whether the log has a `done` event at all. */
  ended: boolean;
  /** On-stop artifacts (`agents.onStop`) by name, the newest answer of each. */
  artifacts: Record<string, string>;
}

const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'NotebookEdit', 'edit', 'multi_edit', 'replace', 'apply_patch']);
const WRITE_TOOLS = new Set(['Write', 'write', 'write_file', 'create_file']);

/** The file a tool call touched: input.file_path / notebook_path / path, else the summary. */
function toolPath(e: EventOf<'tool_call'>): string | null {
  const input = e.input;
  if (input && typeof input === 'object') {
    const i = input as Record<string, unknown>;
    for (const k of ['file_path', 'notebook_path', 'path', 'filePath', 'absolute_path']) {
      if (typeof i[k] === 'string' && i[k] !== '') return i[k] as string;
    }
  }
  const s = (e.summary ?? '').trim();
  return s && !s.includes('\n') ? s : null;
}

export function collectCompletionInfo(events: Iterable<AgentEvent>): CompletionInfo {
  const tally = new CompletionTally();
  for (const e of events) tally.add(e);
  return tally.info();
}

/** What collectCompletionInfo gathers from the events, in order. */
export class CompletionTally {
  /** Edit and write tool calls with a path, in call order. */
  readonly fileCalls: { id: string; kind: 'edit' | 'write'; path: string }[] = [];
  /** Ids of the tool calls whose result was an error. */
  readonly failed = new Set<string>();
  lastDone: EventOf<'done'> | undefined;
  lastStatus: SessionStatus | undefined;
  lastText: string | null = null;
  /** Text pieces not (yet) closed by a whole `text`: what a run cut off mid-message had written. */
  partial = '';
  lastError: string | null = null;
  usageCost: number | null = null;
  any = false;
  readonly updates: string[] = [];
  readonly gitCreated = new Set<string>();
  readonly gitEdited = new Set<string>();
  readonly artifacts: Record<string, string> = {};

  add(e: AgentEvent): void {
    this.any = true;
    switch (e.type) {
      case 'tool_call':
        this.addToolCall(e);
        break;
      case 'tool_result':
        if (e.isError) this.failed.add(e.id);
        break;
      case 'text':
        if (e.text?.trim()) this.lastText = e.text.trim();
        this.partial = '';
        break;
      case 'text_delta':
        this.partial += e.text ?? '';
        break;
      case 'update':
        this.updates.push(e.text);
        break;
      case 'artifact':
        this.artifacts[e.name] = e.text;
        break;
      case 'usage':
        if (typeof e.costUsd === 'number') this.usageCost = (this.usageCost ?? 0) + e.costUsd;
        break;
      case 'status':
        this.lastStatus = e.status;
        break;
      case 'error':
        this.lastError = e.message;
        break;
      case 'done':
        this.addDone(e);
        break;
      case 'user':
        // A new turn: the previous turn's ending no longer describes the agent.
        if (this.lastDone) this.lastStatus = 'running';
        break;
      default:
        // 'init' and any other event say nothing about what the run did or how it ended.
        break;
    }
  }

  private addToolCall(e: EventOf<'tool_call'>): void {
    const kind = EDIT_TOOLS.has(e.name) ? 'edit' : WRITE_TOOLS.has(e.name) ? 'write' : null;
    const p = kind ? toolPath(e) : null;
    if (kind && p) this.fileCalls.push({ id: e.id, kind, path: p });
  }

  private addDone(e: EventOf<'done'>): void {
    for (const f of e.filesCreated ?? []) this.gitCreated.add(f);
    for (const f of e.filesEdited ?? []) if (!this.gitCreated.has(f)) this.gitEdited.add(f);
    this.lastDone = e;
    this.lastStatus = e.status;
    this.lastError = null;
  }

  /** Files edited and created by the successful tool calls, in first-touch order. */
  private toolFiles(): { edited: string[]; created: string[] } {
    const edited: string[] = [];
    const created: string[] = [];
    const touched = new Set<string>();
    for (const c of this.fileCalls) {
      if (this.failed.has(c.id)) continue;
      const wasTouched = touched.has(c.path);
      touched.add(c.path);
      if (c.kind === 'write' && !wasTouched) {
        created.push(c.path);
      } else if (!created.includes(c.path) && !edited.includes(c.path)) {
        edited.push(c.path);
      }
    }
    return { edited, created };
  }

  /** The tool calls' files merged with git's. */
  files(): { edited: string[]; created: string[] } {
    const tool = this.toolFiles();
    const edited: string[] = [];
    const created: string[] = [];
    // The runtime knows better (git status before/after each run): its lists win where they disagree.
    const toolCreated = tool.created.filter((f) => !this.gitEdited.has(f));
    const toolEdited = tool.edited.filter((f) => !this.gitCreated.has(f));
    for (const f of [...toolCreated, ...this.gitCreated]) if (!created.includes(f)) created.push(f);
    for (const f of [...toolEdited, ...this.gitEdited]) if (!created.includes(f) && !edited.includes(f)) edited.push(f);
    return { edited, created };
  }

  info(): CompletionInfo {
    const { lastDone } = this;
    const { edited, created } = this.files();
    return {
      status: this.lastStatus ?? (this.any ? 'running' : 'pending'),
      filesEdited: edited,
      filesCreated: created,
      finalText: lastDone?.finalText?.trim() || this.lastText || this.partial.trim() || null,
      error: lastDone?.error ?? this.lastError,
      costUsd: lastDone?.costUsd ?? this.usageCost,
      durationMs: lastDone?.durationMs ?? null,
      numTurns: lastDone?.numTurns ?? null,
      updates: this.updates,
      ended: lastDone !== undefined,
      artifacts: this.artifacts,
    };
  }
}

export interface SummaryOptions {
  /** Shown in the heading (`── agent 8HJ2KD0P: done · … ──`). */
  label?: string;
  /** Include the final text (default true). An attached start that already streamed it may skip it. */
  finalText?: boolean;
  /** Cut the final text after this many characters (default 6000), with a hint to read the log. */
  maxFinalChars?: number;
  /** Shown after a cut final text, e.g. `klaude logs 8HJ2KD0P`. */
  moreHint?: string;
  /** Files listed per line before "and N more" (default 20). */
  maxFiles?: number;
  /**
   * Directories a file is shown relative to, first match wins (the agent's worktree, then the
   * project), as `klaude diff` shows them; a file outside them stays absolute.
   */
  relativeTo?: readonly (string | null | undefined)[];
}

/** `file` relative to the first of `bases` it is inside. */
export function shownPath(file: string, bases: readonly (string | null | undefined)[] = []): string {
  if (!path.isAbsolute(file)) return file;
  for (const base of bases) {
    if (!base) continue;
    const rel = path.relative(base, file);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return file;
}

function fileList(all: string[], max: number, bases: SummaryOptions['relativeTo']): string {
  const files = all.map((f) => shownPath(f, bases));
  const shown = safeText(files.slice(0, max).join(', '));
  return files.length > max ? `${shown}, and ${files.length - max} more` : shown;
}

/** An artifact on one line of the summary (cut: the full text is in the DB and the log). */
function oneLine(text: string, max = 300): string {
  const flat = safeText(text)
    .trim()
    .replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A short plain block (no colour), ending with a newline; the agent's texts and file names made safe to print. */
export function formatSummary(info: CompletionInfo, opts: SummaryOptions = {}): string {
  const maxFiles = opts.maxFiles ?? 20;
  const head: string[] = [info.status];
  if (info.durationMs !== null) head.push(formatDuration(info.durationMs));
  if (info.numTurns !== null) head.push(`${info.numTurns} turn${info.numTurns === 1 ? '' : 's'}`);
  if (info.costUsd !== null) head.push(formatCost(info.costUsd));
  const lines = [`── ${opts.label ? `${safeText(opts.label)}: ` : ''}${head.join(' · ')} ──`];
  if (info.error) lines.push(`error: ${safeText(info.error).trim().split('\n')[0]}`);
  const bases = opts.relativeTo;
  lines.push(`files edited: ${info.filesEdited.length ? fileList(info.filesEdited, maxFiles, bases) : 'none'}`);
  lines.push(`files created: ${info.filesCreated.length ? fileList(info.filesCreated, maxFiles, bases) : 'none'}`);
  const named = Object.entries(info.artifacts ?? {});
  if (named.length) {
    lines.push('artifacts:');
    for (const [name, text] of named) lines.push(`  ${safeText(name)}: ${oneLine(text)}`);
  }
  if (opts.finalText !== false) {
    const max = opts.maxFinalChars ?? 6000;
    if (info.finalText) {
      let text = safeText(info.finalText);
      if (text.length > max)
        text = `${text.slice(0, max).trimEnd()}\n… (cut${opts.moreHint ? `; full text: ${opts.moreHint}` : ''})`;
      lines.push('final text:', text);
    } else {
      lines.push('final text: none');
    }
  }
  return `${lines.join('\n')}\n`;
}
