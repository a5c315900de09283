import { doublingDelayMs } from '../../common/backoff';

const JITTER = 0.2;
const MAX_DELAY_MS = 60 * 60 * 1000;

/**
 * Delay before attempt n+1 after n failed attempts: base · 2^(n−1), ±20 % jitter, capped at one hour; a receiver's
 * Retry-After (seconds or an HTTP date) lengthens it, never shortens it.
 */
export function nextDelayMs(
  failedAttempts: number,
  baseMs: number,
  retryAfter: string | null | undefined,
  now: number,
  random: () => number = Math.random,
): number {
  const exponential = doublingDelayMs(failedAttempts, baseMs, MAX_DELAY_MS);
  const jittered = exponential * (1 - JITTER + 2 * JITTER * random());
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(jittered, retryAfterMs(retryAfter, now))));
}

export function retryAfterMs(header: string | null | undefined, now: number): number {
  if (!header) return 0;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? 0 : Math.max(0, date - now);
}
