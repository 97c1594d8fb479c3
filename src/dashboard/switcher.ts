/**
 * The Switcher as `klaude ui` needs it: claude exiting with no switch pending (or a failed
 * launch with nothing to fall back to) does not end the supervisor, it hands the terminal back to
 * the dashboard: 'released' with the exit, instead of 'finished'. Only `shutdown()` finishes.
 *
 * Built on the Switcher's public surface (its events, `fg`, `shutdown`), so the state machine in
 * switcher.ts stays the one `klaude` runs.
 */
import type { SupervisorContext } from '../supervisor/context.js';
import type { ForegroundExit } from '../supervisor/foreground.js';
import { Switcher } from '../supervisor/switcher.js';

export class UiSwitcher extends Switcher {
  private closing = false;
  private lastExit: ForegroundExit | null = null;
  private readonly onReleased = new Set<(ev: ForegroundExit) => void>();

  constructor(ctx: SupervisorContext) {
    super(ctx);
    // Runs before the Switcher's own exit handler, which may emit 'finished' synchronously.
    this.fg.prependListener('exit', (ev) => {
      this.lastExit = ev;
    });
  }

  /** Claude is gone and nothing else is coming: the dashboard's turn. */
  onRelease(fn: (ev: ForegroundExit) => void): () => void {
    this.onReleased.add(fn);
    return () => this.onReleased.delete(fn);
  }

  override async shutdown(code: number): Promise<void> {
    this.closing = true;
    return super.shutdown(code);
  }

  override emit(event: 'finished' | 'foreground', ...args: unknown[]): boolean {
    if (event === 'finished' && !this.closing && this.lastExit) {
      const ev = this.lastExit;
      this.lastExit = null;
      for (const fn of [...this.onReleased]) fn(ev);
      return true;
    }
    return (super.emit as (e: string, ...a: unknown[]) => boolean)(event, ...args);
  }
}
