import { doublingDelayMs } from './backoff';
import { isStoreUnavailable } from './errors';

const MAX_STORE_BACKOFF_MS = 10_000;

// A wake during a run runs the task once more after it, however many arrived. While the database is unreachable the
// timer backs off (doubling, up to 10 s) so an outage is not a log line per tick; an explicit wake still runs at once.
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

  /** Once however many calls arrive meanwhile, so a burst is claimed in one batch. */
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
