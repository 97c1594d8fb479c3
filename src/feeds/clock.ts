/**
 * The dashboard's one clock, for the elapsed times of running rows. It ticks (≤ 1 Hz) only while
 * a row on screen is running and is switched off otherwise: an idle dashboard has no timer at
 * all, so it never wakes up.
 */
import { Emitter, type Source } from './store.js';

export class Clock extends Emitter implements Source<number> {
  private timer: NodeJS.Timeout | undefined;
  private tick = 0;
  /** Ticks so far (tests, benches). */
  get ticks(): number {
    return this.tick;
  }

  constructor(private readonly periodMs = 1000) {
    super();
  }

  /** The tick count: a new value means "time moved, redraw the clocks". */
  getSnapshot = (): number => this.tick;

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Tick while `on`; stop (no timer left) when not. */
  setRunning(on: boolean): void {
    if (on && !this.timer) {
      this.timer = setInterval(() => {
        this.tick++;
        this.emit();
      }, this.periodMs);
    } else if (!on && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
