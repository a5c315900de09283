import { loadConfig } from '../../src/common/config';
import { AppError } from '../../src/common/errors';
import { LoginThrottle } from '../../src/modules/accounts/login-throttle';

const MINUTE = 60_000;

function throttle(env: Record<string, string> = {}): LoginThrottle {
  return new LoginThrottle(loadConfig({ NODE_ENV: 'test', ...env }));
}

function refusal(run: () => unknown): AppError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

describe('login throttle', () => {
  it('refuses a (account, source) pair after 5 failures in 15 minutes and no other source', () => {
    const t = throttle();
    const engaged = [0, 1, 2, 3, 4].map((i) => t.recordFailure('a@x.test', '10.0.0.1', i * MINUTE));
    expect(engaged).toEqual([[], [], [], [], ['account_source']]);

    const error = refusal(() => t.admit('a@x.test', '10.0.0.1', 5 * MINUTE));
    expect(error?.code).toBe('rate_limited');
    expect(error?.headers).toEqual({ 'retry-after': String(10 * 60) });
    expect(t.admit('a@x.test', '10.0.0.2', 5 * MINUTE)).toEqual({ delayMs: 0 });
    expect(t.admit('b@x.test', '10.0.0.1', 5 * MINUTE)).toEqual({ delayMs: 0 });
    expect(t.admit('a@x.test', '10.0.0.1', 15 * MINUTE + 1)).toEqual({ delayMs: 0 });
  });

  it('delays, never refuses, a new source once the account has more than 50 failures', () => {
    const t = throttle({ SERVICE_LOGIN_BACKSTOP_DELAY_S: '4' });
    for (let i = 0; i < 50; i += 1) expect(t.recordFailure('a@x.test', `10.0.${i}.1`, i)).toEqual([]);
    expect(t.admit('a@x.test', '10.9.9.9', 60)).toEqual({ delayMs: 0 });
    expect(t.recordFailure('a@x.test', '10.0.99.1', 61)).toEqual(['account_backstop']);
    expect(t.admit('a@x.test', '10.9.9.9', 62)).toEqual({ delayMs: 4000 });
    expect(t.admit('other@x.test', '10.9.9.9', 62)).toEqual({ delayMs: 0 });
  });

  it('a success clears its own source, a password reset the whole account', () => {
    const t = throttle({ SERVICE_LOGIN_ACCOUNT_BACKSTOP: '6' });
    for (let i = 0; i < 5; i += 1) {
      t.recordFailure('a@x.test', '10.0.0.1', i);
      t.recordFailure('a@x.test', '10.0.0.2', i);
    }
    t.recordSuccess('a@x.test', '10.0.0.1');
    expect(t.admit('a@x.test', '10.0.0.1', 10).delayMs).toBeGreaterThan(0);
    expect(refusal(() => t.admit('a@x.test', '10.0.0.2', 10))?.code).toBe('rate_limited');
    t.clearAccount('a@x.test');
    expect(t.admit('a@x.test', '10.0.0.2', 10)).toEqual({ delayMs: 0 });
  });
});
