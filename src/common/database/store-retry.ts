import { setTimeout as sleep } from 'node:timers/promises';
import { doublingDelayMs } from '../backoff';
import { isStoreUnavailable } from '../errors';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/**
 * Runs `work` until it gets past a database outage: a failure because the store is unreachable is retried with
 * backoff (250 ms doubling to 5 s) until it succeeds or `isStopped()`; any other failure is thrown at once. Work
 * already done in memory (a finished simulation, a sent webhook) is then recorded when the database is back rather
 * than lost or done again.
 */
export async function retryWhileStoreUnavailable<T>(
  work: () => Promise<T>,
  isStopped: () => boolean,
  onRetry: (error: unknown, attempt: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isStoreUnavailable(error) || isStopped()) throw error;
      onRetry(error, attempt);
      await sleep(doublingDelayMs(attempt, FIRST_DELAY_MS, MAX_DELAY_MS));
    }
  }
}
