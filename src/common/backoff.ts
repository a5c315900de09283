/**
 * The delay after `failures` failures in a row (1 or more): `firstMs`, doubled per further failure, capped at
 * `maxMs`. The one backoff rule of the daemon's retries (webhook deliveries, background loops, store retries, the
 * runtime daemon's restarts); callers add jitter or floors of their own.
 */
export function doublingDelayMs(failures: number, firstMs: number, maxMs: number): number {
  // The exponent is bounded so that a long outage cannot overflow to Infinity before the cap applies.
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(failures, 1) - 1, 30));
}
