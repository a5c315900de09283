import { Injectable, Inject } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError, retryAfterSeconds } from '../../common/errors';
import { WindowCounter, WindowCounters } from '../../common/rate-limits';

const WINDOW_S = 60;

/**
 * Inline connector test/browse calls per credential per minute (SERVICE_PREVIEW_RATE_LIMIT), shared by every
 * replica. One appliance counts in memory: a restart forgets, which only errs towards allowing.
 */
@Injectable()
export class PreviewRateLimiter {
  private readonly calls: WindowCounter;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    counters: WindowCounters,
  ) {
    this.calls = counters.create('connector_preview', config.previewRateLimit, WINDOW_S);
  }

  /** Counts one call; throws 429 rate_limited with Retry-After when the caller is over the limit. */
  async take(caller: string): Promise<void> {
    const call = await this.calls.take([caller]);
    if (call.counted) return;
    throw AppError.retryLater(
      'rate_limited',
      call.retryAfterMs,
      `At most ${this.config.previewRateLimit} inline connector tests and browses per minute; retry in ${retryAfterSeconds(call.retryAfterMs)} s.`,
    );
  }
}
