/**
 * What a run leaves behind: the session log (every normalised event), and the DB row kept
 * current from those events (native id, last text, tokens and cost, [UPDATE] notes for the
 * parent, status and the run's end). The runtime (runtime-main.ts) decides *when*; this
 * decides *what is written where*.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentEventInput, EventOf } from '../core/events.js';
import { shortId } from '../core/ids.js';
import { applyTransition, isTerminal } from '../core/status.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { addUpdate } from '../db/repos/updates.js';
import type { RuntimeRequest } from './launch.js';
import type { Deps } from './runtime-main.js';
import { clip } from './tool-summary.js';

const LAST_TEXT_MAX = 500;

export class RunRecord {
  nativeId: string | null;
  private done = false;
  /** Totals from earlier runs of this session; this run's usage adds to them. */
  private readonly base: { cost: number; tokensIn: number; tokensOut: number };
  private processCost = 0;
  private tokensIn = 0;
  private tokensOut = 0;

  constructor(private readonly d: Deps) {
    this.nativeId = d.session.nativeSessionId;
    this.base = { cost: d.session.costUsd ?? 0, tokensIn: d.session.tokensIn ?? 0, tokensOut: d.session.tokensOut ?? 0 };
  }

  get finalized(): boolean {
    return this.done;
  }

  private get id(): string {
    return this.d.session.id;
  }

  write(e: AgentEventInput): void {
    try {
      this.d.writer.append(e);
    } catch (err) {
      this.d.log.error('cannot append to the session log', { err });
    }
  }

  /** Claude ids become links (so old ids keep resolving); other runtimes' ids sit on the session. */
  setNativeId(id: string): void {
    const { d } = this;
    this.nativeId = id;
    if (d.session.runtime === 'claude') {
      linkClaudeSession(d.db, {
        klaudeSessionId: this.id,
        claudeSessionId: id,
        transcriptPath: d.adapter.transcriptPath?.(d.meta.cwd, id, d.env) ?? null,
        source: 'headless',
      });
    } else {
      updateSession(d.db, this.id, { nativeSessionId: id });
    }
  }

  /** A CLI is starting on the request: the session runs again, and the log says with what. */
  started(request: RuntimeRequest, resume: boolean): void {
    const { d } = this;
    const cur = getSession(d.db, this.id);
    if (cur && applyTransition(cur.status, 'running', { resume: true }).allowed) {
      updateSession(d.db, this.id, { status: 'running', endedAt: null });
    }
    this.write({ type: 'status', status: 'running', ...(resume ? { reason: 'resumed' } : {}) });
    this.write({ type: 'user', text: request.prompt, source: request.source });
    if (request.share) this.write({ type: 'user', text: request.share, source: 'share' });
  }

  /** Every event but `done` (the runtime decides what a finished turn means). */
  apply(e: Exclude<AgentEventInput, { type: 'done' }>): void {
    const { d } = this;
    switch (e.type) {
      case 'init':
        if (e.nativeSessionId !== this.nativeId) this.setNativeId(e.nativeSessionId);
        this.write(e);
        break;
      case 'text':
        this.write(e);
        updateSession(d.db, this.id, { lastText: clip(e.text.trim(), LAST_TEXT_MAX) });
        break;
      case 'update':
        this.write(e);
        if (d.session.parentId) addUpdate(d.db, { sessionId: this.id, parentSessionId: d.session.parentId, text: e.text });
        break;
      case 'usage':
        this.tokensIn += (e.inputTokens ?? 0) + (e.cacheReadTokens ?? 0);
        this.tokensOut += e.outputTokens ?? 0;
        if (e.costUsd !== undefined) this.processCost += e.costUsd;
        this.write(e);
        updateSession(d.db, this.id, this.totals());
        break;
      default:
        this.write(e);
    }
  }

  private totals(): { costUsd: number; tokensIn: number; tokensOut: number } {
    return {
      costUsd: this.base.cost + this.processCost,
      tokensIn: this.base.tokensIn + this.tokensIn,
      tokensOut: this.base.tokensOut + this.tokensOut,
    };
  }

  /** The run's ending, once: DB first (so a follower woken by the log line reads the final state), then the log. */
  finalize(done: Omit<EventOf<'done'>, 'ts'>): void {
    if (this.done) return;
    this.done = true;
    const { d } = this;
    const totals = this.totals();
    const event = { ...done, costUsd: totals.costUsd };
    try {
      const cur = getSession(d.db, this.id);
      if (cur && !isTerminal(cur.status)) {
        updateSession(d.db, this.id, {
          status: done.status,
          endedAt: Date.now(),
          ...totals,
          ...(done.finalText ? { lastText: clip(done.finalText.trim(), LAST_TEXT_MAX) } : {}),
        });
      }
      addEvent(d.db, {
        projectId: d.session.projectId,
        klaudeSessionId: this.id,
        kind: 'agent.done',
        payload: { status: done.status, ...(done.error ? { error: done.error } : {}) },
      });
    } catch (err) {
      d.log.error('recording the end of the run failed', { err });
    }
    // Saved before the `done` line, so whoever is woken by that line finds the file.
    if (done.status === 'done' && done.finalText) this.saveOutput(done.finalText);
    this.write(event);
  }

  /** Agent definitions with `outputDir` keep each final text under `<project>/.claude/<outputDir>/`. */
  private saveOutput(text: string): void {
    const dir = this.d.meta.agent.outputDir;
    if (!dir) return;
    try {
      const target = path.join(this.d.meta.projectRoot, '.claude', dir);
      mkdirSync(target, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      writeFileSync(path.join(target, `${stamp}-${this.d.session.type}-${shortId(this.id)}.md`), `${text.trimEnd()}\n`);
    } catch (err) {
      this.d.log.warn('saving the agent output failed', { err, dir });
    }
  }
}

/** The log line for messages an interrupt kept from being sent on. */
export function droppedNote(texts: readonly string[]): string {
  const shown = texts.map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 59)}…` : t)).join(', ');
  return `${texts.length} queued message(s) not sent because the turn was interrupted: ${shown}; send again with klaude message`;
}
