import { ConnectorError } from '../connector-error';

/** What the appliance as a whole lets parse threads take (SERVICE_PARSE_MAX_THREADS, SERVICE_PARSE_TOTAL_MEMORY_MB). */
export interface ParseSlotLimits {
  readonly maxThreads: number;
  readonly totalMemoryMb: number;
  /** One thread's heap; it is reserved whole while the thread runs. */
  readonly memoryMb: number;
}

interface Waiter {
  readonly limits: ParseSlotLimits;
  readonly grant: () => void;
}

/** Appliance-wide caps on parse threads and their heap; a parse waits its turn (its deadline still runs). */
export class ParseSlots {
  private running = 0;
  private reservedMb = 0;
  private readonly waiting: Waiter[] = [];

  get queued(): number {
    return this.waiting.length;
  }

  async acquire(limits: ParseSlotLimits, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.waiting.length === 0 && this.fits(limits)) return this.take(limits);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        limits,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.take(limits));
        },
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        const reason: unknown = signal?.reason;
        reject(
          reason instanceof ConnectorError
            ? reason
            : new ConnectorError(
                'timeout',
                'Parsing the file was stopped: its deadline passed while it waited.',
              ),
        );
        this.grantWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private fits(limits: ParseSlotLimits): boolean {
    if (this.running === 0) return true;
    return this.running < limits.maxThreads && this.reservedMb + limits.memoryMb <= limits.totalMemoryMb;
  }

  private take(limits: ParseSlotLimits): () => void {
    this.running += 1;
    this.reservedMb += limits.memoryMb;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.reservedMb -= limits.memoryMb;
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0].limits)) this.waiting.shift()?.grant();
  }
}
