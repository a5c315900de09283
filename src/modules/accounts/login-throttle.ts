import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors';
import { SlidingWindowLimiter } from './sliding-window-limiter';

const WINDOW_MS = 15 * 60_000;
/** Failed logins tolerated per address and per client IP within the window. */
export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_IP = 20;

/** Throttles repeated login failures per e-mail address and per client address (429 rate_limited). */
@Injectable()
export class LoginThrottle {
  private readonly byEmail = new SlidingWindowLimiter(FAILURES_PER_EMAIL, WINDOW_MS);
  private readonly byIp = new SlidingWindowLimiter(FAILURES_PER_IP, WINDOW_MS);

  assertAllowed(email: string, ip: string): void {
    const waitMs = Math.max(this.byEmail.retryAfterMs(email), this.byIp.retryAfterMs(ip));
    if (waitMs > 0) {
      const seconds = String(Math.max(1, Math.ceil(waitMs / 1000)));
      throw new AppError('rate_limited', 'Too many failed logins: retry later.', undefined, { 'retry-after': seconds });
    }
  }

  recordFailure(email: string, ip: string): void {
    this.byEmail.hit(email);
    this.byIp.hit(ip);
  }

  recordSuccess(email: string): void {
    this.byEmail.reset(email);
  }
}
