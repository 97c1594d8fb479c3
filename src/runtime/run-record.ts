/**
 * What a run leaves behind: the session log (every normalised event), and the DB row kept
 * current from those events (native id, last text, tokens and cost, [UPDATE] notes for the
 * parent, status and the run's end). The runtime (agent-runtime.ts) decides *when*; this
 * decides *what is written where*.
 */
import { notify } from '../agent-ops/notify.js';
import { existsSync } from 'node:fs';
import { describeRetry, type AgentEventInput, type EventOf } from '../core/events.js';
import { shortId } from '../core/ids.js';
import { applyTransition, isTerminal } from '../core/status.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { addUpdate } from '../db/repos/updates.js';
import { saveArtifact } from '../db/repos/artifacts.js';
import { beginTurn, continueTurn, endTurn, noteText, noteToolCall } from '../db/repos/checkpoints.js';
import type { RuntimeRequest } from '../agent-ops/launch.js';
import type { Deps } from './deps.js';
import { clip, oneLine, toolActivity } from '../core/tool-summary.js';
import { saveAgentOutput } from '../agent-types/output-dir.js';
import { recordReviewEnd } from './review-result.js';
import { isKlaudeError } from '../lib/errors.js';
import { changesSince, snapshotTree, worktreeChanges, type FileChanges, type TreeSnapshot } from '../git/changes.js';
import { RunProgress } from './progress-meter.js';
import { imageNotes } from './outgoing.js';

const LAST_TEXT_MAX = 500;
const ACTIVITY_MAX = 120;
const ERROR_MAX = 300;

/** What an event says the agent is doing now (undefined: it says nothing new). */
export function activityOf(e: AgentEventInput): string | null | undefined {
  switch (e.type) {
    case 'text_delta':
      return 'writing';
    case 'init': // the CLI is up and asking the model
    case 'thinking_delta':
    case 'tool_result':
    case 'user':
      return 'thinking';
    case 'tool_call':
      return toolActivity(e.name, e.summary);
    case 'retry':
      return clip(describeRetry(e), ACTIVITY_MAX);
    case 'done':
      return null;
    default:
      return undefined;
  }
}

export class RunRecord {
  nativeId: string | null;
  /** The turn running is an on-stop prompt's (its text is not the agent's answer). */
  onStopTurn = false;
  /** Text deltas of an assistant block went to the checkpoint; its closing `text` must not again. */
  private deltaBlock = false;
  private done = false;
  /** Totals from earlier runs of this session; this run's usage adds to them. */
  private readonly base: { cost: number; tokensIn: number; tokensOut: number };
  private processCost = 0;
  /** The running turn's cost as estimated from its responses (the turn's `usage` replaces it). */
  private turnEstimate = 0;
  private tokensIn = 0;
  private tokensOut = 0;
  /** The run's earlier work turns (a message sent on after a turn): the run's `done` adds them up. */
  private readonly earlier = { durationMs: 0, numTurns: 0, counted: false };
  private activity: string | null | undefined;
  /** The shared tree's dirty files when this run began (null: not a git tree, or a worktree agent). */
  private before: TreeSnapshot | null = null;
  private snapshotTaken = false;
  /** How far along the run is (the row's `progress`), from its first CLI's start. */
  private progress: RunProgress | null = null;

  constructor(private readonly d: Deps) {
    this.nativeId = d.session.nativeSessionId;
    this.base = {
      cost: d.session.costUsd ?? 0,
      tokensIn: d.session.tokensIn ?? 0,
      tokensOut: d.session.tokensOut ?? 0,
    };
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

  /**
   * What the agent is doing now, on its row (tree, `klaude sessions`): written only when it
   * changes, so a stream of deltas costs one write ("writing"), not one per delta.
   */
  noteActivity(e: AgentEventInput): void {
    const a = activityOf(e);
    if (a === undefined || a === this.activity) return;
    this.activity = a;
    try {
      updateSession(this.d.db, this.id, { activity: a });
    } catch (err) {
      this.d.log.warn('cannot record the activity', { err });
    }
  }

  /** A CLI is starting on the request: the session runs again, and the log says with what. */
  started(request: RuntimeRequest, resume: boolean): void {
    const { d } = this;
    if (!this.snapshotTaken && !d.session.worktreePath) this.before = snapshotTree(d.meta.cwd);
    this.snapshotTaken = true;
    const cur = getSession(d.db, this.id);
    if (cur && applyTransition(cur.status, 'running', { resume: true }).allowed) {
      this.activity = 'thinking'; // the prompt goes to the model now
      updateSession(d.db, this.id, {
        status: 'running',
        endedAt: null,
        activity: 'thinking',
        runStartedAt: Date.now(),
        error: null,
      });
    }
    this.write({ type: 'status', status: 'running', ...(resume ? { reason: 'resumed' } : {}) });
    this.progress ??= new RunProgress(d);
    if (request.source === 'recover') {
      // The same turn goes on: its checkpoint (tool calls, partial answer) is kept.
      this.checkpoint(() => continueTurn(d.db, this.id));
      this.write({ type: 'recovered', cause: request.recoverCause ?? 'the previous run died mid-turn', mode: 'auto' });
    }
    this.write({ type: 'user', text: request.prompt, source: request.source, ...imageNotes(request.images ?? []) });
    if (request.share) this.write({ type: 'user', text: request.share, source: 'share' });
  }

  /** Checkpoint writes must never stop a run: a failure is logged and the run goes on. */
  private checkpoint(f: () => void): void {
    try {
      f();
    } catch (err) {
      this.d.log.warn('updating the checkpoint failed', { err });
    }
  }

  /** A prompt was sent: a new turn starts (the checkpoint follows it). */
  beginTurn(prompt: string): void {
    this.checkpoint(() => beginTurn(this.d.db, this.id, prompt));
  }

  endTurn(): void {
    this.checkpoint(() => endTurn(this.d.db, this.id));
  }

  /** Cost of this run's process so far (on-stop turns are priced by the difference). */
  get runCost(): number {
    return this.processCost;
  }

  /** An on-stop prompt's answer: kept as a named artifact (DB), and marked in the log. */
  saveArtifact(name: string, text: string, costUsd: number): void {
    try {
      saveArtifact(this.d.db, { sessionId: this.id, name, text, costUsd });
    } catch (err) {
      this.d.log.error('saving an artifact failed', { err, name });
    }
    this.write({ type: 'artifact', name, text, costUsd });
  }

  /** Every event but `done` (the runtime decides what a finished turn means). */
  apply(e: Exclude<AgentEventInput, { type: 'done' }>): void {
    const { d } = this;
    if (!this.onStopTurn) this.progress?.onEvent(e); // on-stop prompts are not the work
    switch (e.type) {
      case 'init':
        if (e.nativeSessionId !== this.nativeId) this.setNativeId(e.nativeSessionId);
        this.write(e);
        this.noteActivity(e);
        break;
      case 'text':
        this.write(e);
        if (this.onStopTurn) break; // an on-stop answer is an artifact, not the agent's last word
        updateSession(d.db, this.id, { lastText: clip(e.text.trim(), LAST_TEXT_MAX) });
        // The checkpoint has the block already when its deltas came first.
        if (!this.deltaBlock) this.checkpoint(() => noteText(d.db, this.id, e.text));
        this.deltaBlock = false;
        break;
      case 'text_delta':
        if (!this.onStopTurn) {
          const sep = this.deltaBlock ? '' : '\n\n';
          this.deltaBlock = true;
          this.checkpoint(() => noteText(d.db, this.id, e.text, sep));
        }
        this.write(e);
        this.noteActivity(e);
        break;
      case 'thinking_delta':
      case 'retry':
        this.write(e);
        this.noteActivity(e);
        break;
      case 'tool_call':
      case 'tool_result':
        this.write(e);
        this.noteActivity(e);
        if (e.type === 'tool_call' && !this.onStopTurn)
          this.checkpoint(() => noteToolCall(d.db, this.id, `${e.name}: ${clip(e.summary ?? '', 200)}`));
        break;
      case 'update':
        this.write(e);
        addUpdate(d.db, { sessionId: this.id, parentSessionId: d.session.parentId, text: e.text });
        break;
      case 'usage':
        this.tokensIn += (e.inputTokens ?? 0) + (e.cacheReadTokens ?? 0);
        this.tokensOut += e.outputTokens ?? 0;
        if (e.costUsd !== undefined) this.processCost += e.costUsd;
        else this.processCost += this.turnEstimate; // no figure from the CLI: the estimate stands
        this.turnEstimate = 0;
        this.write(e);
        updateSession(d.db, this.id, this.totals());
        break;
      default:
        this.write(e);
    }
  }

  /**
   * The running turn's cost so far grew: the row shows it now (so a spend limit sees it), until the
   * turn's own figure replaces it.
   */
  estimateTurn(usd: number): void {
    if (usd <= this.turnEstimate) return;
    this.turnEstimate = usd;
    try {
      updateSession(this.d.db, this.id, { costUsd: this.totals().costUsd });
    } catch (err) {
      this.d.log.warn('cannot record the cost so far', { err });
    }
  }

  /** A CLI process ended without its turn's figure (a crash, a relaunch): what it was seen to spend stays. */
  settleEstimate(): void {
    this.processCost += this.turnEstimate;
    this.turnEstimate = 0;
  }

  private totals(): { costUsd: number; tokensIn: number; tokensOut: number } {
    return {
      costUsd: this.base.cost + this.processCost + this.turnEstimate,
      tokensIn: this.base.tokensIn + this.tokensIn,
      tokensOut: this.base.tokensOut + this.tokensOut,
    };
  }

  /**
   * A work turn ended and the run goes on with the next message: its time and turns count in the
   * run's `done` (claude's result of the last turn knows only that turn).
   */
  countEarlierTurn(done: Pick<EventOf<'done'>, 'durationMs' | 'numTurns'>): void {
    this.earlier.durationMs += done.durationMs ?? 0;
    this.earlier.numTurns += done.numTurns ?? 0;
    this.earlier.counted = true;
  }

  /** The run's ending, once: the log's `done` line, then the row (status, totals) and the DB event. */
  /** `tell`: false when the ending was told already (over budget: told as such, not as a failure). */
  finalize(done: Omit<EventOf<'done'>, 'ts'>, tell = true): void {
    if (this.done) return;
    this.done = true;
    const { d } = this;
    this.endTurn(); // the run ended on purpose (done, failed, interrupted): nothing to recover
    const totals = this.totals();
    const files = this.fileChanges();
    const { earlier } = this;
    const event = {
      ...done,
      ...(earlier.counted
        ? {
            durationMs: earlier.durationMs + (done.durationMs ?? 0),
            numTurns: earlier.numTurns + (done.numTurns ?? 0),
          }
        : {}),
      costUsd: totals.costUsd,
      ...(files
        ? { filesCreated: union(done.filesCreated, files.created), filesEdited: union(done.filesEdited, files.edited) }
        : {}),
    };
    // Saved before the `done` line, so whoever is woken by that line finds the file.
    if (done.status === 'done' && done.finalText) this.saveOutput(done.finalText);
    recordReviewEnd(d, done);
    if (done.status === 'done') this.progress?.keepMeasure();
    // The line before the row: whoever sees the row ended (`klaude wait`, then `logs`) finds the
    // log complete. A follower woken by the line may find the row still running for the moment
    // the update takes; waitForAgents looks again shortly after (agent-ops/follow-agents.ts).
    this.write(event);
    try {
      const cur = getSession(d.db, this.id);
      if (cur && !isTerminal(cur.status)) {
        if (tell) this.tell(done, cur.runStartedAt ?? cur.createdAt);
        updateSession(d.db, this.id, {
          status: done.status,
          endedAt: Date.now(),
          activity: null,
          error:
            done.status === 'failed' ? clip(oneLine(done.error ?? 'failed without a reason given'), ERROR_MAX) : null,
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
  }

  /** A run that ended done or failed is told outside the terminal (config notify.*), once per run. */
  private tell(done: Omit<EventOf<'done'>, 'ts'>, runStart: number): void {
    if (done.status !== 'done' && done.status !== 'failed') return;
    const why = done.status === 'failed' ? clip(oneLine(done.error ?? 'failed'), 120) : undefined;
    notify(this.d, {
      kind: done.status,
      sessionId: this.id,
      eventKey: `${done.status}:${this.id}:${runStart}`,
      ...(why ? { detail: why } : {}),
    });
  }

  /** What the run changed in the working tree, from git (see git/changes.ts); null when git can't say. */
  private fileChanges(): FileChanges | null {
    const s = this.d.session;
    try {
      if (s.worktreePath && s.worktreeBase)
        return existsSync(s.worktreePath) ? worktreeChanges(s.worktreePath, s.worktreeBase) : null;
      return this.before ? changesSince(this.before) : null;
    } catch (err) {
      this.d.log.warn('reading the changed files from git failed', { err });
      return null;
    }
  }

  /** Agent definitions with `outputDir` keep each final text under `<project>/.claude/<outputDir>/`. */
  private saveOutput(text: string): void {
    const dir = this.d.meta.agent.outputDir;
    if (!dir) return;
    try {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const name = `${stamp}-${this.d.session.type}-${shortId(this.id)}.md`;
      saveAgentOutput(this.d.meta.projectRoot, dir, name, `${text.trimEnd()}\n`);
    } catch (err) {
      this.d.log.warn('saving the agent output failed', { err, dir });
      const hint = isKlaudeError(err) && err.hint ? ` (${err.hint})` : '';
      this.write({ type: 'error', message: `output not saved: ${(err as Error).message}${hint}` });
    }
  }
}

function union(a: string[] | undefined, b: string[]): string[] {
  return [...new Set([...(a ?? []), ...b])];
}

/** The log line for messages an interrupt kept from being sent on. */
export function droppedNote(texts: readonly string[]): string {
  const shown = texts.map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 59)}…` : t)).join(', ');
  return `${texts.length} queued message(s) not sent because the turn was interrupted: ${shown}; send again with klaude message`;
}

/** Messages still queued when the run ended. */
export function undeliveredNote(texts: readonly string[]): string {
  return `${texts.length} queued message(s) were not delivered: the agent stopped first`;
}
