import { doublingDelayMs } from './backoff';
import { isStoreUnavailable } from './errors';

/** The longest a loop waits between runs while the database is unreachable. */
const MAX_STORE_BACKOFF_MS = 10_000;

/**
 * Runs one task now and every `intervalMs`, never two at once: a wake that arrives while the task runs is
 * remembered and runs the task once more after it (however many wakes arrived), so nothing signalled is missed
 * and nothing piles up. `stop()` cancels the timer and waits for the run in flight.
 *
 * While runs fail because the database is unreachable, the timer backs off (the interval doubled per failure, up to
 * 10 s, never shorter than the interval) so an outage is not a log line per loop per tick; an explicit `wake()` —
 * new work, written to the database that is therefore back — still runs at once.
 */
export class BackgroundLoop {
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private isWakePending = false;
  private stopped = false;
  private storeFailures = 0;
  private resumeAt = 0;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
    this.wake();
  }

  wake(): void {
    if (this.stopped) return;
    if (this.inFlight) {
      this.isWakePending = true;
      return;
    }
    this.inFlight = this.runWhileWoken();
  }

  /**
   * Wakes after `delayMs`, once however many calls arrive meanwhile: work signalled in a burst (jobs submitted, jobs
   * finished) is then claimed in one batch rather than one claim each.
   */
  wakeSoon(delayMs: number): void {
    if (this.soon || this.stopped) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.wake();
    }, delayMs);
  }

  private tick(): void {
    if (Date.now() >= this.resumeAt) this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.soon);
    this.soon = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private async runWhileWoken(): Promise<void> {
    try {
      do {
        this.isWakePending = false;
        try {
          await this.task();
          this.storeFailures = 0;
          this.resumeAt = 0;
        } catch (error) {
          this.onError(error);
          if (isStoreUnavailable(error)) this.backOff();
        }
      } while (this.isWakePending && !this.stopped);
    } finally {
      this.inFlight = undefined;
    }
  }

  private backOff(): void {
    this.storeFailures++;
    const longest = Math.max(MAX_STORE_BACKOFF_MS, this.intervalMs);
    this.resumeAt = Date.now() + doublingDelayMs(this.storeFailures, this.intervalMs, longest);
  }
}
