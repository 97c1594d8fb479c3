/**
 * On-stop prompts (config `agents.onStop` plus the agent definition's `onStop`; design notes:
 * khlone `hooks.onStop`). When an agent's work ends `done`, each prompt is sent as one more turn in
 * the same conversation and its answer kept as a named artifact; the run's `done` (with the work's
 * final text) is written after the last one. Needs a CLI that takes further turns on stdin
 * (claude); for one-turn-per-process CLIs nothing is run.
 */
import type { AgentEventInput, EventOf } from '../core/events.js';
import type { OnStopPrompt } from '../config/schema.js';
import type { Deps } from './deps.js';

type Done = Omit<EventOf<'done'>, 'ts'>;

/** What of the run record (run-record.ts) on-stop turns use. */
interface Recorder {
  onStopTurn: boolean;
  readonly runCost: number;
  write(e: AgentEventInput): void;
  endTurn(): void;
  saveArtifact(name: string, text: string, costUsd: number): void;
}

/** Config prompts, then the definition's; the same artifact name in both: the definition's wins. */
export function onStopPrompts(
  config: readonly OnStopPrompt[],
  definition: readonly OnStopPrompt[] | undefined,
): OnStopPrompt[] {
  const own = definition ?? [];
  const names = new Set(own.map((p) => p.artifact));
  return [...config.filter((p) => !names.has(p.artifact)), ...own];
}

/** An agent's on-stop prompts; a reviewer has none (its answer is its findings). */
export function agentOnStop(d: Pick<Deps, 'config' | 'meta' | 'session'>): OnStopPrompt[] {
  return d.session.reviewOf ? [] : onStopPrompts(d.config['agents.onStop'], d.meta.agent.onStop);
}

export class OnStopTurns {
  private pending: OnStopPrompt[] = [];
  private running: { prompt: OnStopPrompt; costBefore: number } | null = null;
  /** The `done` of the work itself, written once the on-stop turns are over. */
  private workDone: Done | null = null;

  constructor(private readonly prompts: readonly OnStopPrompt[]) {}

  /** An on-stop turn is running. */
  get inTurn(): boolean {
    return this.running !== null;
  }

  /** On-stop prompts are waiting to be sent. */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * A turn ended. An on-stop turn: its answer is saved as an artifact. A turn of the work: its
   * checkpoint closes, and when the work may end here (nothing queued, the CLI takes more turns)
   * the prompts are queued if it ended `done`.
   */
  turnEnded(done: Done, rec: Recorder, workMayEnd: boolean): void {
    if (this.running) {
      const a = this.answered(done, rec.runCost);
      if (a) rec.saveArtifact(a.name, a.text, a.costUsd);
    } else {
      rec.endTurn();
      if (workMayEnd) this.workEnded(done);
    }
    rec.onStopTurn = false;
  }

  /** Send the next on-stop prompt, marked in the log (`user`, source onStop). False when none is left. */
  sendNext(rec: Recorder, send: (text: string) => void): boolean {
    const p = this.next(rec.runCost);
    if (!p) return false;
    rec.write({ type: 'user', text: p.prompt, source: 'onStop' });
    rec.onStopTurn = true;
    send(p.prompt);
    return true;
  }

  /** The work ended with `done`: queue the prompts. False when there is nothing to run. */
  workEnded(done: Done): boolean {
    if (done.status !== 'done' || this.prompts.length === 0) return false;
    this.workDone = done;
    this.pending = [...this.prompts];
    return true;
  }

  /** The next prompt to send (now marked running), or null when all ran. */
  next(costNow: number): OnStopPrompt | null {
    const p = this.pending.shift();
    if (!p) return null;
    this.running = { prompt: p, costBefore: costNow };
    return p;
  }

  /** The running on-stop turn ended: its artifact (name, answer, cost). A failed turn skips the rest. */
  answered(done: Done, costNow: number): { name: string; text: string; costUsd: number } | null {
    const r = this.running;
    this.running = null;
    if (!r) return null;
    if (done.status !== 'done') this.pending = [];
    const text = (done.finalText ?? '').trim();
    if (done.status !== 'done' && !text) return null;
    return { name: r.prompt.artifact, text, costUsd: Math.max(0, costNow - r.costBefore) };
  }

  /** The work's own `done` (once), for the run's ending; null when no on-stop turns ran. */
  takeWorkDone(): Done | null {
    const d = this.workDone;
    this.workDone = null;
    this.pending = [];
    return d;
  }
}
