import { DecodeBudget } from '../../../src/modules/connectors/formats/decode-budget';

/** A thread whose busy time the test moves by hand; each budget measures from the moment it is set. */
class BusyThread {
  busyMs = 0;
  readonly overruns: number[] = [];
  readonly budget = new DecodeBudget(
    () => {
      const from = this.busyMs;
      return () => this.busyMs - from;
    },
    (budgetMs) => this.overruns.push(budgetMs),
  );
}

describe('DecodeBudget', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports an overrun once, at the first check past the budget, and then stops checking', () => {
    const thread = new BusyThread();
    thread.budget.set(1000);
    thread.busyMs = 1000;
    jest.advanceTimersByTime(500);
    expect(thread.overruns).toEqual([]);
    thread.busyMs = 1001;
    jest.advanceTimersByTime(100);
    expect(thread.overruns).toEqual([1000]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('replaces a budget set before: only the last one is checked, from when it was set', () => {
    const thread = new BusyThread();
    thread.budget.set(1000);
    thread.busyMs = 800;
    thread.budget.set(5000);
    expect(jest.getTimerCount()).toBe(1);
    thread.busyMs = 5000;
    jest.advanceTimersByTime(1000);
    expect(thread.overruns).toEqual([]);
    thread.busyMs = 5801;
    jest.advanceTimersByTime(100);
    expect(thread.overruns).toEqual([5000]);
  });

  it('judges a busy time read asynchronously (the thread CPU clock) the same way', async () => {
    let cpuMs = 0;
    const overruns: number[] = [];
    const budget = new DecodeBudget(
      () => {
        const from = Promise.resolve(cpuMs);
        return async () => cpuMs - (await from);
      },
      (budgetMs) => overruns.push(budgetMs),
    );
    budget.set(1000);
    cpuMs = 1000;
    await jest.advanceTimersByTimeAsync(500);
    expect(overruns).toEqual([]);
    cpuMs = 1001;
    await jest.advanceTimersByTimeAsync(100);
    expect(overruns).toEqual([1000]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('leaves no check behind once cleared', () => {
    const thread = new BusyThread();
    thread.budget.set(1000);
    thread.budget.set(2000);
    thread.budget.clear();
    expect(jest.getTimerCount()).toBe(0);
    thread.busyMs = 10_000;
    jest.advanceTimersByTime(1000);
    expect(thread.overruns).toEqual([]);
  });
});
