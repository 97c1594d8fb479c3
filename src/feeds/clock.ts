/**
 * The dashboard's one clock. It ticks (≤ 1 Hz) only while a row on screen is running, for the
 * elapsed times; otherwise it wakes once, when the next age shown on screen reads differently
 * ("59s" → "1m", "1h" → "2h"), and not at all when no age is shown: an idle dashboard whose
 * rows are minutes old wakes once a minute at most, not once a second.
 */
import { Emitter, type Source } from './store.js';

/** setTimeout's longest delay (a longer one fires at once); a wake this far off is re-armed. */
const MAX_DELAY_MS = 2_147_483_647;

export class Clock extends Emitter implements Source<number> {
  private timer: NodeJS.Timeout | undefined;
  private wake: NodeJS.Timeout | undefined;
  /** The pending wake's due time on the real clock (Date.now()). */
  private wakeDue = 0;
  private tick = 0;
  /** Ticks so far (tests, benches). */
  get ticks(): number {
    return this.tick;
  }

  constructor(
    private readonly periodMs = 1000,
    private readonly realNow: () => number = Date.now,
  ) {
    super();
  }

  /** The tick count: a new value means "time moved, redraw the clocks". */
  getSnapshot = (): number => this.tick;

  /** The 1 Hz tick is on (the log's streamed text rides on it). */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** A one-off wake is pending. */
  get waking(): boolean {
    return this.wake !== undefined;
  }

  /** Tick while `on`; stop (no timer left) when not. */
  setRunning(on: boolean): void {
    if (on && !this.timer) {
      this.timer = setInterval(() => this.advance(), this.periodMs);
    } else if (!on && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Tick once, `delayMs` from now (null: cancel). Replaces the pending wake. A timer that fires
   * before its due time on the real clock (timers and Date.now() keep time differently) waits out
   * the rest instead of ticking early: the label it is for would not have changed yet.
   */
  wakeIn(delayMs: number | null): void {
    this.cancelWake();
    if (delayMs === null) return;
    this.wakeDue = this.realNow() + Math.max(0, delayMs);
    this.armWake(Math.max(0, delayMs));
  }

  private armWake(delayMs: number): void {
    this.wake = setTimeout(
      () => {
        const left = this.wakeDue - this.realNow();
        if (left > 0) return this.armWake(left);
        this.wake = undefined;
        this.advance();
      },
      Math.min(delayMs, MAX_DELAY_MS),
    );
  }

  private cancelWake(): void {
    if (this.wake) clearTimeout(this.wake);
    this.wake = undefined;
  }

  /** Stop every timer. */
  stop(): void {
    this.setRunning(false);
    this.cancelWake();
  }

  private advance(): void {
    this.tick++;
    this.emit();
  }
}
