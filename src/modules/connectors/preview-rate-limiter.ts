import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError, retryAfterSeconds } from '../../common/errors';

const WINDOW_MS = 60_000;

/**
 * Inline connector test/browse calls per credential per minute (SERVICE_PREVIEW_RATE_LIMIT), in fixed one-minute
 * windows kept in memory: a restart forgets them, which only ever errs towards allowing.
 */
@Injectable()
export class PreviewRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Counts one call; throws 429 rate_limited with Retry-After when the caller is over the limit. */
  take(caller: string, now = Date.now()): void {
    this.sweep(now);
    const window = this.windows.get(caller);
    if (!window || now - window.start >= WINDOW_MS) {
      this.windows.set(caller, { start: now, count: 1 });
      return;
    }
    if (window.count >= this.config.previewRateLimit) {
      const waitMs = window.start + WINDOW_MS - now;
      throw AppError.retryLater(
        'rate_limited',
        waitMs,
        `At most ${this.config.previewRateLimit} inline connector tests and browses per minute; retry in ${retryAfterSeconds(waitMs)} s.`,
      );
    }
    window.count += 1;
  }

  private sweep(now: number): void {
    if (this.windows.size < 10_000) return;
    for (const [caller, window] of this.windows)
      if (now - window.start >= WINDOW_MS) this.windows.delete(caller);
  }
}
