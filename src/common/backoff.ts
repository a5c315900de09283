// The one backoff rule of the daemon's retries; callers add jitter or floors of their own.
export function doublingDelayMs(failures: number, firstMs: number, maxMs: number): number {
  // The exponent is bounded so that a long outage cannot overflow to Infinity before the cap applies.
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(failures, 1) - 1, 30));
}
