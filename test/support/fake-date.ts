/**
 * Fakes `Date` alone, starting at `now` and moved only by `jest.setSystemTime`: the rate limiter reads
 * `Date.now()`, while sockets, connection pools and their timers keep real time.
 */
export function fakeDateOnly(now = 0): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
