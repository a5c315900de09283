import { ClockStepWatch } from '../../src/common/clock';
import {
  EvaluationState,
  nextSlotAfter,
  planSlot,
  Reading,
  RepeatRules,
  transition,
  valueOf,
} from '../../src/modules/triggers/trigger-evaluation';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number): Date => new Date(T0 + s * 1000);
const INACTIVE: EvaluationState = {
  state: 'inactive',
  pendingSince: null,
  recoveringSince: null,
  lastFiredAt: null,
  consecutiveErrors: 0,
};
const met: Reading = { kind: 'value', value: 50, conditionMet: true };
const notMet: Reading = { kind: 'value', value: 150, conditionMet: false };

/** Feeds readings at the given seconds and returns the states and which evaluations fired. */
function run(rules: RepeatRules, steps: [number, Reading][]): string[] {
  let current = INACTIVE;
  return steps.map(([s, reading]) => {
    const next = transition(current, rules, reading, at(s));
    current = { ...next, lastFiredAt: next.shouldFire ? at(s) : next.lastFiredAt };
    return `${next.state}${next.shouldFire ? '!' : ''}`;
  });
}

describe('trigger state machine', () => {
  it('fires on the first evaluation whose condition holds, once per episode without a cooldown', () => {
    expect(
      run({ forS: 0, cooldownS: 0, keepFiringS: 0 }, [
        [0, notMet],
        [60, met],
        [120, met],
        [180, notMet],
        [240, met],
      ]),
    ).toEqual(['inactive', 'firing!', 'firing', 'inactive', 'firing!']);
  });

  it('waits out the pending period, and a false reading in it starts over', () => {
    expect(
      run({ forS: 120, cooldownS: 0, keepFiringS: 0 }, [
        [0, met],
        [60, met],
        [90, notMet],
        [120, met],
        [240, met],
      ]),
    ).toEqual(['pending', 'pending', 'inactive', 'pending', 'firing!']);
  });

  it('repeats after each cooldown while the condition stays true, and a new episode respects it too', () => {
    expect(
      run({ forS: 0, cooldownS: 150, keepFiringS: 0 }, [
        [0, met],
        [60, met],
        [120, met],
        [180, met],
        [200, notMet],
        [260, met],
        [340, met],
      ]),
    ).toEqual(['firing!', 'firing', 'firing', 'firing!', 'inactive', 'firing', 'firing!']);
  });

  it('keeps firing through the keep-firing window without a new fire, then resolves', () => {
    expect(
      run({ forS: 0, cooldownS: 0, keepFiringS: 100 }, [
        [0, met],
        [60, notMet],
        [120, met],
        [180, notMet],
        [240, notMet],
        [300, notMet],
      ]),
    ).toEqual(['firing!', 'recovering', 'firing', 'recovering', 'recovering', 'inactive']);
  });

  it('goes to no_data on an empty result and to error only after failures in a row', () => {
    const error: Reading = { kind: 'error', message: 'dataset gone' };
    expect(
      run({ forS: 0, cooldownS: 0, keepFiringS: 0 }, [
        [0, { kind: 'no_data' }],
        [60, error],
        [120, error],
        [180, error],
        [240, notMet],
      ]),
    ).toEqual(['no_data', 'no_data', 'no_data', 'error', 'inactive']);
  });
});

describe('slot planning', () => {
  it('evaluates a slot that is on time and plans the next one on the grid', () => {
    expect(planSlot(at(60), 60, 0, at(61))).toEqual({ slot: at(60), skipped: 0, next: at(120) });
  });

  it('after downtime evaluates only the latest slot, and only while it is on time or inside the catch-up window', () => {
    expect(planSlot(at(60), 60, 0, at(60 * 10 + 5))).toEqual({ slot: at(600), skipped: 9, next: at(660) });
    expect(planSlot(at(60), 60, 0, at(60 * 10 + 45))).toEqual({ slot: null, skipped: 10, next: at(660) });
    expect(planSlot(at(60), 60, 50, at(60 * 10 + 45))).toEqual({ slot: at(600), skipped: 9, next: at(660) });
  });

  it('counts the slots an evaluation overran', () => {
    expect(nextSlotAfter(at(120), 60, at(100))).toEqual({ next: at(120), skipped: 0 });
    expect(nextSlotAfter(at(120), 60, at(250))).toEqual({ next: at(300), skipped: 3 });
  });

  it('restarts the grid one interval from now when the clock stepped back during an evaluation', () => {
    expect(nextSlotAfter(at(7260), 60, at(100))).toEqual({ next: at(160), skipped: 0 });
    expect(nextSlotAfter(at(160), 60, at(100))).toEqual({ next: at(160), skipped: 0 });
  });
});

describe('the wall clock stepping back', () => {
  function watch(): { step: ClockStepWatch; move: (wallMs: number, monotonicMs: number) => void } {
    let wall = 1_000_000;
    let monotonic = 0;
    const step = new ClockStepWatch({ now: () => new Date(wall) }, () => monotonic);
    return {
      step,
      move: (wallMs, monotonicMs) => {
        wall += wallMs;
        monotonic += monotonicMs;
      },
    };
  }

  it('is noticed once, when the wall clock moved more than 2 s less than the monotonic clock', () => {
    const { step, move } = watch();
    move(1000, 1000);
    expect(step.steppedBack()).toBe(false);
    move(-7_200_000, 1000);
    expect(step.steppedBack()).toBe(true);
    move(1000, 1000);
    expect(step.steppedBack()).toBe(false);
  });

  it('is not a step forward, nor a late tick, nor a second of jitter', () => {
    const { step, move } = watch();
    move(3_600_000, 1000);
    expect(step.steppedBack()).toBe(false);
    move(30_000, 30_000);
    expect(step.steppedBack()).toBe(false);
    move(-1500, 0);
    expect(step.steppedBack()).toBe(false);
  });
});

describe('value of a query result', () => {
  const rows = [{ stock: 80 }, { stock: '120' }, { stock: null }];
  it('reads a row or aggregates the column, and has nothing to say about no rows', () => {
    expect(valueOf(rows, 'stock', 'first')).toBe(80);
    expect(valueOf(rows, 'stock', 'last')).toBeUndefined();
    expect(valueOf(rows, 'stock', 'sum')).toBe(200);
    expect(valueOf(rows, 'stock', 'avg')).toBe(100);
    expect(valueOf(rows, 'stock', 'min')).toBe(80);
    expect(valueOf(rows, 'stock', 'max')).toBe(120);
    expect(valueOf(rows, 'stock', 'count')).toBe(3);
    expect(valueOf([], 'stock', 'count')).toBeUndefined();
  });
});
