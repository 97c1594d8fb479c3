/**
 * Interrupting a running turn. The CLI is asked first, on its own channel (stream-json
 * `control_request` {subtype: interrupt}), so it ends the turn itself; one that has not acknowledged
 * within INTERRUPT_ACK_MS, or cannot be asked, gets SIGINT (claude then ends the turn with a result,
 * exit 0). Either way the turn ends `interrupted`.
 */
import type { CliProcess } from './cli-process.js';

export const INTERRUPT_ACK_MS = 2000;
/** Our control requests' ids: a control_response with one acknowledges the interrupt. */
const ID_PREFIX = 'klaude_int_';

export class TurnInterrupt {
  private timer: NodeJS.Timeout | null = null;
  private seq = 0;
  /** An interrupt was asked in this turn: the CLI ending it is no crash. */
  asked = false;

  /** Ask `cli` to end its turn; SIGINT if it cannot be asked, or if `inTurn()` still holds after the wait. */
  request(cli: CliProcess, encode: (requestId: string) => string | null, inTurn: () => boolean): void {
    this.asked = true;
    const line = encode(`${ID_PREFIX}${++this.seq}`);
    if (line && cli.write(line)) {
      this.cancelTimer();
      this.timer = setTimeout(() => {
        this.timer = null;
        if (inTurn()) cli.signal('SIGINT');
      }, INTERRUPT_ACK_MS);
    } else {
      cli.signal('SIGINT');
    }
  }

  /** The CLI answered a control request: ours means no SIGINT is needed. */
  acknowledged(requestId: string): void {
    if (requestId.startsWith(ID_PREFIX)) this.cancelTimer();
  }

  /** The turn ended: the next one starts with nothing asked. */
  turnEnded(): void {
    this.asked = false;
    this.cancelTimer();
  }

  cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
