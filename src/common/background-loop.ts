/**
 * Runs one task now and every `intervalMs`, never two at once: a wake that arrives while the task runs is
 * remembered and runs the task once more after it (however many wakes arrived), so nothing signalled is missed
 * and nothing piles up. `stop()` cancels the timer and waits for the run in flight.
 */
export class BackgroundLoop {
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private isWakePending = false;
  private stopped = false;

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
    this.timer = setInterval(() => this.wake(), this.intervalMs);
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
        } catch (error) {
          this.onError(error);
        }
      } while (this.isWakePending && !this.stopped);
    } finally {
      this.inFlight = undefined;
    }
  }
}
