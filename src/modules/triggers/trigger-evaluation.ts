import { Aggregate, TriggerState } from './triggers.types';

/**
 * The pure rules of scheduled evaluation: which slot to evaluate after a delay, how a reading moves the state
 * machine, and whether it fires. Time comes in as arguments, so tests drive it without waiting.
 */

/** The evaluation state a reading moves on from. */
export interface EvaluationState {
  readonly state: TriggerState;
  readonly pendingSince: Date | null;
  readonly recoveringSince: Date | null;
  readonly lastFiredAt: Date | null;
  readonly consecutiveErrors: number;
}

export interface RepeatRules {
  readonly forS: number;
  readonly cooldownS: number;
  readonly keepFiringS: number;
}

export type Reading =
  | { readonly kind: 'value'; readonly value: number; readonly conditionMet: boolean }
  | { readonly kind: 'no_data' }
  | { readonly kind: 'error'; readonly message: string };

export interface Transition extends EvaluationState {
  readonly shouldFire: boolean;
  readonly lastError: string | null;
}

/** A query that fails this many times in a row puts the trigger in state `error`; one failure is not an outage. */
export const ERRORS_BEFORE_ERROR_STATE = 3;

const seconds = (from: Date, to: Date): number => (to.getTime() - from.getTime()) / 1000;

/**
 * inactive → pending (for_s not over) → firing → recovering (keep-firing window) → inactive. A fire needs the
 * cooldown to have passed since the previous one; while the condition stays true a firing trigger fires again
 * after each cooldown, and only once per episode when the cooldown is 0.
 */
export function transition(
  current: EvaluationState,
  rules: RepeatRules,
  reading: Reading,
  now: Date,
): Transition {
  if (reading.kind === 'error') {
    const consecutiveErrors = current.consecutiveErrors + 1;
    return {
      ...current,
      state: consecutiveErrors >= ERRORS_BEFORE_ERROR_STATE ? 'error' : current.state,
      consecutiveErrors,
      shouldFire: false,
      lastError: reading.message,
    };
  }
  const base = { lastFiredAt: current.lastFiredAt, consecutiveErrors: 0, lastError: null };
  if (reading.kind === 'no_data') {
    return { ...base, state: 'no_data', pendingSince: null, recoveringSince: null, shouldFire: false };
  }
  const isCooledDown = current.lastFiredAt === null || seconds(current.lastFiredAt, now) >= rules.cooldownS;
  if (reading.conditionMet) {
    const isEpisodeOpen = current.state === 'firing' || current.state === 'recovering';
    if (isEpisodeOpen) {
      const repeats = rules.cooldownS > 0 && isCooledDown;
      return { ...base, state: 'firing', pendingSince: null, recoveringSince: null, shouldFire: repeats };
    }
    const pendingSince = current.state === 'pending' && current.pendingSince ? current.pendingSince : now;
    if (seconds(pendingSince, now) < rules.forS) {
      return { ...base, state: 'pending', pendingSince, recoveringSince: null, shouldFire: false };
    }
    return { ...base, state: 'firing', pendingSince: null, recoveringSince: null, shouldFire: isCooledDown };
  }
  if (current.state === 'firing' || current.state === 'recovering') {
    const recoveringSince =
      current.state === 'recovering' && current.recoveringSince ? current.recoveringSince : now;
    if (seconds(recoveringSince, now) < rules.keepFiringS) {
      return { ...base, state: 'recovering', pendingSince: null, recoveringSince, shouldFire: false };
    }
  }
  return { ...base, state: 'inactive', pendingSince: null, recoveringSince: null, shouldFire: false };
}

export interface SlotPlan {
  /** The slot to evaluate now, or null when the latest one is too late to mean anything. */
  readonly slot: Date | null;
  /** Slots passed over: missed while the daemon was down or while the previous evaluation ran. */
  readonly skipped: number;
  /** The slot after the one evaluated (or passed over). */
  readonly next: Date;
}

/** A slot evaluated within this much of its time is on time: half the interval, at most 30 s. */
export function onTimeGraceMs(intervalS: number): number {
  return Math.min(intervalS * 500, 30_000);
}

/**
 * Slots are `due + k × interval`. After a delay only the latest slot that has come is a candidate (no backlog of
 * stale evaluations); it runs when it is on time (within the grace) or within the catch-up window, else it is
 * skipped too and evaluation resumes at the next slot.
 */
export function planSlot(due: Date, intervalS: number, catchUpWindowS: number, now: Date): SlotPlan {
  const intervalMs = intervalS * 1000;
  const behind = Math.max(0, now.getTime() - due.getTime());
  const passed = Math.floor(behind / intervalMs);
  const latest = new Date(due.getTime() + passed * intervalMs);
  const next = new Date(latest.getTime() + intervalMs);
  const lateness = now.getTime() - latest.getTime();
  const isInTime = lateness <= Math.max(onTimeGraceMs(intervalS), catchUpWindowS * 1000);
  return isInTime ? { slot: latest, skipped: passed, next } : { slot: null, skipped: passed + 1, next };
}

/**
 * A next slot is at most one interval ahead of the clock; further ahead, the wall clock has stepped back since it
 * was planned, and waiting for it would stall the trigger for the length of the step.
 */
export function isAheadOfClockStep(next: Date, intervalS: number, now: Date): boolean {
  return next.getTime() - now.getTime() > intervalS * 1000;
}

/**
 * The first slot after `now` on the grid of `next`, and how many grid slots up to `now` were passed over. After a
 * step back of the clock the grid is restarted one interval from `now`.
 */
export function nextSlotAfter(next: Date, intervalS: number, now: Date): { next: Date; skipped: number } {
  if (isAheadOfClockStep(next, intervalS, now)) {
    return { next: new Date(now.getTime() + intervalS * 1000), skipped: 0 };
  }
  if (next.getTime() > now.getTime()) return { next, skipped: 0 };
  const intervalMs = intervalS * 1000;
  const skipped = Math.floor((now.getTime() - next.getTime()) / intervalMs) + 1;
  return { next: new Date(next.getTime() + skipped * intervalMs), skipped };
}

/** One number from a query's rows, or undefined when they hold none (state `no_data`). */
export function valueOf(
  rows: readonly Record<string, unknown>[],
  column: string,
  aggregate: Aggregate,
): number | undefined {
  if (rows.length === 0) return undefined;
  if (aggregate === 'count') return rows.length;
  const numbers = rows.map((row) => toNumber(row[column])).filter((n): n is number => n !== undefined);
  switch (aggregate) {
    case 'first':
      return toNumber(rows[0][column]);
    case 'last':
      return toNumber(rows[rows.length - 1][column]);
    case 'sum':
      return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0);
    case 'avg':
      return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0) / numbers.length;
    case 'min':
      return numbers.length === 0 ? undefined : Math.min(...numbers);
    case 'max':
      return numbers.length === 0 ? undefined : Math.max(...numbers);
  }
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}
