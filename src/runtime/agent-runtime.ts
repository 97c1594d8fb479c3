/**
 * The agent runtime's main loop: one detached process (`klaude __runtime`, entry.ts) per burst of an
 * agent's work, not per agent. It claims the session, starts the agent's CLI through its adapter,
 * records what the CLI says (run-record.ts), answers requests on its socket (runtime-socket.ts),
 * and exits as soon as the last turn is done with nothing queued. A later `klaude message` starts a
 * new runtime that resumes the same native session (claude `--resume` continues in place: same id,
 * same transcript), so nothing idles between bursts and a crash between turns leaves no "running"
 * agent behind.
 */
import type { AgentEventInput, EventOf } from '../core/events.js';
import type { ControlServer } from '../control/server.js';
import type { InterruptResult, MessageResult } from '../control/protocol.js';
import { claimRun, forwardToOther, recordCli, refuseTaken } from './run-claim.js';
import type { Normaliser } from '../adapters/runtime-adapter.js';
import { CliProcess, type CliExit } from './cli-process.js';
import { ApprovalDesk } from './approval-desk.js';
import type { RuntimeRequest } from '../agent-ops/launch.js';
import { droppedNote, RunRecord, undeliveredNote } from './run-record.js';
import { MessageQueue } from './message-queue.js';
import { checkIncoming, encodeOutgoing, imageNotes, joinOutgoing, runEnding, type Outgoing } from './outgoing.js';
import type { ImageRef } from '../core/image.js';
import { setUndelivered } from '../db/repos/sessions.js';
import { cliLaunch, firstPrompt, launchIds, type CliLaunch } from './cli-launch.js';
import { checkLaunch } from './sandbox-check.js';
import { agentOnStop, OnStopTurns } from './on-stop.js';
import { RateLimitWatch } from './rate-limit.js';
import { recoverCli } from './recover-cli.js';
import { DeltaCoalescer } from './delta-coalescer.js';
import { assertWorktreeThere } from '../git/worktree.js';
import { TurnInterrupt } from './turn-interrupt.js';
import { listenForRequests } from './runtime-socket.js';
import { BudgetWatch, checkBudget, overBudgetDone } from './budget-gate.js';
import { exitFailure, forgetForkCopy, releaseRun, STOP_GRACE_MS, stopIfLingering } from './run-end.js';
import type { Deps } from './deps.js';
import type { AgentChannel } from './agent-channel.js';
import { markBlocked, openAgentChannel } from './sandbox-launch.js';

export class AgentRuntime {
  private cli: CliProcess | null = null;
  private normaliser: Normaliser;
  private server: ControlServer | null = null;
  private processRowId: number | null = null;
  /** Messages that arrived during a turn (message-queue.ts). */
  private readonly queue: MessageQueue;
  private turnActive = true; // the first message is pending from the start
  private stopping = false;
  private readonly interrupt = new TurnInterrupt();
  /** Died mid-turn with `agents.recover: ask`: the run ends without a `done`, waiting for the person. */
  private parked = false;
  private readonly rec: RunRecord;
  private readonly stops: OnStopTurns;
  private readonly rateLimits: RateLimitWatch;
  private readonly deltas: DeltaCoalescer; // token deltas: one log line per ~100 ms
  private readonly desk: ApprovalDesk;
  private readonly budget: BudgetWatch;
  /** A sandboxed agent's way to its own klaude (agent-channel.ts), open while this runtime runs. */
  private channel: AgentChannel | null = null;

  constructor(private readonly d: Deps) {
    this.rec = new RunRecord(d);
    this.budget = new BudgetWatch(d, (e) => this.write(e));
    this.queue = new MessageQueue((texts) => setUndelivered(d.db, d.session.id, texts));
    this.deltas = new DeltaCoalescer((e) => this.rec.apply(e));
    this.desk = new ApprovalDesk(d, this.rec, (line) => this.cli?.write(line) ?? false);
    this.normaliser = this.newNormaliser();
    this.stops = new OnStopTurns(agentOnStop(d));
    this.rateLimits = new RateLimitWatch({ ...d, runtime: d.session.runtime, write: (e) => this.write(e) });
  }

  private get finalized(): boolean {
    return this.rec.finalized;
  }

  private write(e: AgentEventInput): void {
    this.deltas.flush();
    this.rec.write(e);
  }

  /** `tell`: false when the ending was told already. Over budget, it was (as such, not as a failure). */
  private finalize(done: Omit<EventOf<'done'>, 'ts'>, tell = true): void {
    this.deltas.flush();
    if (!this.finalized) {
      this.desk.closeAll('the run ended');
      forgetForkCopy(this.d); // before the row says the run ended: then only the fork's own transcript is there
    }
    this.rec.finalize(this.budget.ending(done), tell && !this.budget.over);
  }

  private newNormaliser(): Normaliser {
    return this.d.adapter.createNormaliser({
      onControlResponse: (id) => this.interrupt.acknowledged(id),
      onControlCancel: (id) => this.desk.onCancel(id),
      onTurnSpend: (usd) => this.onTurnSpend(usd),
    });
  }

  /** The turn's cost grew: on the row now, and past a limit the turn is interrupted (budget-gate.ts). */
  private onTurnSpend(usd: number): void {
    this.rec.estimateTurn(usd);
    if (!this.turnActive || this.stopping || this.finalized || !this.cli?.running) return;
    if (this.budget.crossedDuringTurn()) this.interruptTurn(this.cli);
  }

  private get id(): string {
    return this.d.session.id;
  }

  /**
   * Claim the session, listen on its socket, start the CLI, and follow it to the run's end: the
   * process's exit code.
   */
  async run(request: RuntimeRequest): Promise<number> {
    const { d } = this;
    const claimed = claimRun(d.db, this.id, d.session.instanceId);
    if (claimed === null) return forwardToOther(d, request.prompt);
    if (typeof claimed === 'object') return refuseTaken(d, claimed.busy, (e) => this.write(e));
    this.processRowId = claimed;
    this.server = await listenForRequests(d, {
      message: (prompt, images) => this.onMessage(prompt, images),
      interrupt: (peek) => (peek ? { results: [], dropped: this.queue.peek() } : this.onInterrupt()),
      answer: (p, who) => this.desk.answer(p, who),
      stop: (reason) => this.stop(reason),
    });

    if (this.stopping) return this.shutdown(null);
    const over = checkBudget(d);
    if (over) {
      // Reached before this run's first turn: the turn is not started (a message after raising it goes on).
      this.finalize(overBudgetDone(d, over), false);
      return this.shutdown(null);
    }
    try {
      const launch = this.nextLaunch(request);
      // The CLI's own sandbox first: one that cannot start fails the run now, in the CLI's words.
      const blocked = await checkLaunch(launch, { cwd: d.meta.cwd, log: d.log });
      if (this.stopping) return this.shutdown(null);
      if (blocked) {
        this.finalize({ type: 'done', status: 'failed', error: blocked });
        return this.shutdown(null);
      }
      this.spawnCli(launch, request);
    } catch (e) {
      d.log.error('cannot start the agent CLI', { err: e });
      this.finalize({ type: 'done', status: 'failed', error: (e as Error).message });
      return this.shutdown(null);
    }
    for (;;) {
      const exit = await this.cli!.exited;
      if (!this.relaunchForQueued(exit) && !this.recoverMidTurn(exit)) return this.shutdown(exit);
    }
  }

  /** The runtime's own watcher: its CLI died mid-turn (see agent-ops/recover.ts, `agents.recover`). */
  private recoverMidTurn(exit: CliExit): boolean {
    if (this.stopping || this.finalized || !this.turnActive || this.interrupt.asked || this.stops.inTurn) return false;
    // A clean exit is no crash: CLIs that end a turn by exiting (opencode, codex) exit 0 then.
    if (exit.signal === null && exit.code === 0) return false;
    const flush = (): void => this.normaliser.end(exit).forEach((e) => e.type !== 'done' && this.write(e));
    const next = recoverCli(this.d, exit, flush, (e) => this.write(e));
    this.parked = next === 'parked';
    return next !== null && next !== 'parked' && this.relaunch(next);
  }

  /** A new CLI process for the same run (queued messages, recovery). False: it could not start (the run failed). */
  private relaunch(request: RuntimeRequest): boolean {
    this.interrupt.cancelTimer();
    this.rec.settleEstimate();
    this.normaliser = this.newNormaliser();
    this.turnActive = true;
    try {
      this.launch(request);
      return true;
    } catch (e) {
      this.d.log.error('cannot restart the agent CLI', { err: e });
      this.finalize({ type: 'done', status: 'failed', error: (e as Error).message });
      return false;
    }
  }

  /**
   * CLIs without streaming input (codex, gemini, opencode, cursor) run one turn per process:
   * messages that arrived during the turn are sent by resuming the native session in a new
   * process once this one has exited. The finished turn's `done` is not written (as with claude,
   * whose queued messages continue the run); the run goes on. False: nothing to resume.
   */
  private relaunchForQueued(exit: CliExit): boolean {
    const { d } = this;
    if (d.adapter.supportsStreamingInput || this.stopping || this.finalized || this.queue.length === 0) return false;
    d.log.info('agent CLI exited with messages queued: resuming its session in a new process', {
      code: exit.code,
      signal: exit.signal,
    });
    for (const e of this.normaliser.end(exit)) {
      if (e.type !== 'done') this.write(e);
      else if (e.error) this.write({ type: 'error', message: e.error }); // the turn failed: keep why
    }
    return this.relaunch({ prompt: joinOutgoing(this.queue.takeAll()).text, source: 'message' });
  }

  /** Start a CLI on the request (relaunches: the sandbox was checked by the first). */
  private launch(request: RuntimeRequest): void {
    this.spawnCli(this.nextLaunch(request), request);
  }

  /**
   * The CLI's command for the request, and the log told it starts: a new native session the first
   * time (its id chosen here when the adapter lets us), a resumed one once its transcript exists.
   */
  private nextLaunch(request: RuntimeRequest): CliLaunch {
    const { d } = this;
    const { meta, session } = d;
    assertWorktreeThere(session.worktreePath, meta.cwd, session.id);
    const { nativeId, resume } = launchIds(d, this.rec.nativeId);
    if (nativeId) this.rec.setNativeId(nativeId);
    const launch = cliLaunch(d, { nativeId, resume, first: firstPrompt(request, d.session) });
    this.channel ??= openAgentChannel(d, launch);
    d.log.info('starting agent CLI', { file: launch.cmd.file, resume, nativeId, cwd: meta.cwd });
    this.rec.started(request, resume);
    return launch;
  }

  private spawnCli({ cmd, env }: CliLaunch, request: RuntimeRequest): void {
    const { d } = this;
    const { adapter, meta } = d;
    const first = firstPrompt(request, d.session);
    this.cli = new CliProcess(cmd, {
      cwd: meta.cwd,
      env,
      onLine: (line) => this.handle(this.normaliser.line(line)),
      onStderr: (s) => d.log.debug('agent CLI stderr', { text: s.slice(0, 2000) }),
    });
    recordCli(d, this.id, this.processRowId, this.cli);
    const queued = this.cli.canWrite ? this.queue.takeAll() : [];
    const all = joinOutgoing([{ text: first, images: request.images ?? [] }, ...queued]);
    if (request.source !== 'recover') this.rec.beginTurn(all.text);
    if (this.cli.canWrite) {
      this.cli.write(this.encode(all));
      for (const q of queued) this.write({ type: 'user', text: q.text, source: 'message', ...imageNotes(q.images) });
    }
  }

  private handle(events: AgentEventInput[]): void {
    // Stopped: the run's `done` closes the log; what the CLI still had in the pipe would land after it.
    if (this.stopping) return;
    for (const e of events) {
      try {
        if (e.type === 'text_delta' || e.type === 'thinking_delta') {
          this.deltas.push(e);
          continue;
        }
        this.deltas.flush();
        if (e.type === 'retry') this.rateLimits.retry(e);
        if (e.type === 'tool_result' && this.d.meta.sandbox?.state === 'sandboxed') markBlocked(e);
        if (e.type === 'done') this.onTurnDone(e);
        else if (e.type === 'approval_request') this.desk.onRequest(e);
        else this.rec.apply(e);
      } catch (err) {
        this.d.log.error('handling an agent event failed', { err, type: e.type });
      }
    }
  }

  private onTurnDone(turnDone: EventOf<'done'> | Omit<EventOf<'done'>, 'ts'>): void {
    let done = turnDone;
    this.turnActive = false;
    this.desk.closeAll('the turn ended');
    this.interrupt.turnEnded();
    // An interrupt stops the agent: what was queued behind the cut-off turn is not sent on.
    if (done.status === 'interrupted' && this.queue.length > 0)
      this.write({ type: 'error', message: droppedNote(this.queue.takeAll().map((o) => o.text)) });
    const canContinue = !this.stopping && this.cli?.canWrite === true;
    this.stops.turnEnded(done, this.rec, this.queue.length === 0 && canContinue);
    if (this.budget.stopsMore(this.queue, canContinue && this.stops.hasPending, canContinue)) {
      this.stops.takeWorkDone();
      return this.endWork(done);
    }
    if (this.queue.length > 0 && canContinue) {
      this.stops.takeWorkDone(); // the work goes on; on-stop prompts run when it ends again
      this.rec.countEarlierTurn(done);
      this.sendQueued();
      return;
    }
    if (canContinue && this.stops.sendNext(this.rec, (text) => this.cli!.write(this.d.adapter.encodeMessage(text)))) {
      this.turnActive = true;
      return;
    }
    done = this.stops.takeWorkDone() ?? done;
    if (this.queue.length > 0 && !this.stopping && !this.d.adapter.supportsStreamingInput) {
      // One turn per process: the queued messages resume the session once this process exits.
      if (done.status === 'failed' && done.error) this.write({ type: 'error', message: done.error });
      stopIfLingering(this.cli);
      return;
    }
    this.endWork(done);
  }

  /**
   * The work is done: the run ends now rather than idling until the next message (which starts a
   * new runtime). Status and `done` first, then the socket, then the CLI's stdin: it exits on EOF.
   */
  private endWork(done: Omit<EventOf<'done'>, 'ts'>): void {
    this.finalize(done);
    this.server?.close().catch(() => undefined); // clients may already be gone: nothing to wait for
    this.server = null;
    this.cli?.closeInput();
    stopIfLingering(this.cli);
  }

  private sendQueued(): void {
    const items = this.queue.takeAll();
    for (const o of items) this.write({ type: 'user', text: o.text, source: 'message', ...imageNotes(o.images) });
    const all = joinOutgoing(items);
    this.rec.beginTurn(all.text);
    this.turnActive = true;
    this.cli!.write(this.encode(all));
  }

  /** The stdin line of a message, its images read now (one that cannot be is said in the log). */
  private encode(o: Outgoing): string {
    return encodeOutgoing(this.d.adapter, o, (message) => this.write({ type: 'error', message }));
  }

  /** Socket `message`: queued for after the turn (see `queue`), or sent now between turns. */
  private onMessage(prompt: string, images: readonly ImageRef[]): MessageResult {
    const streaming = this.d.adapter.supportsStreamingInput;
    if (this.finalized || this.stopping || (this.cli && (streaming ? !this.cli.canWrite : !this.cli.running))) {
      throw runEnding(this.id, 'is finishing its run');
    }
    checkIncoming(this.d, images);
    this.queue.push({ text: prompt, images });
    if (!streaming) return { delivered: 'queued', pid: process.pid };
    if (!this.turnActive && this.cli) this.sendQueued();
    return { delivered: 'stdin', pid: process.pid };
  }

  /** Socket `interrupt` (and SIGINT): the turn running ends `interrupted` (turn-interrupt.ts). */
  onInterrupt(): InterruptResult {
    const cli = this.cli;
    if (this.finalized || this.stopping || !this.turnActive || !cli?.running) {
      throw runEnding(this.id, 'is not in a turn');
    }
    this.interruptTurn(cli);
    this.d.log.info('interrupt requested');
    return { results: [{ sessionId: this.id, ok: true }], dropped: this.queue.peek() };
  }

  /** Ask the CLI to end the running turn (turn-interrupt.ts); it ends `interrupted`. */
  private interruptTurn(cli: CliProcess): void {
    this.normaliser.noteInterrupt();
    this.interrupt.request(
      cli,
      (id) => this.d.adapter.encodeInterrupt(id),
      () => this.turnActive,
    );
  }

  /**
   * SIGTERM (a checkout stopping a headless agent) / `stop`: the run ends `interrupted` now, so the
   * log and the row say so whatever the CLI does next; the CLI is stopped after (SIGTERM, SIGKILL
   * after STOP_GRACE_MS).
   */
  async stop(reason: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.d.log.info('stopping', { reason });
    this.normaliser.noteInterrupt();
    for (const e of this.normaliser.end({ code: null, signal: 'SIGTERM', stderr: '' })) {
      if (e.type === 'done') this.finalize({ ...e, status: 'interrupted', error: undefined });
    }
    this.finalize({ type: 'done', status: 'interrupted' });
    this.server?.close().catch(() => undefined); // clients may already be gone: nothing to wait for
    this.server = null;
    await this.cli?.stop(STOP_GRACE_MS);
  }

  private async shutdown(exit: CliExit | null): Promise<number> {
    const { d } = this;
    this.deltas.dispose();
    this.interrupt.cancelTimer();
    const work = this.stops.takeWorkDone(); // the CLI ended during on-stop turns: the work itself was done
    if (work) this.finalize(work);
    if (exit) d.log.info('agent CLI exited', { code: exit.code, signal: exit.signal });
    // Stopped: stop() ended the normaliser and closed the log already.
    if (exit && !this.parked && !this.stopping) {
      for (const e of this.normaliser.end(exit)) {
        if (e.type === 'done') this.finalize(e);
        else this.write(e);
      }
      if (!this.finalized) this.finalize(exitFailure(d.adapter.name, exit));
    }
    const left = this.queue.takeAll();
    if (left.length > 0) this.write({ type: 'error', message: undeliveredNote(left.map((o) => o.text)) });
    this.channel?.close();
    await releaseRun(d, this.processRowId, exit, this.server);
    return 0;
  }
}
