import { Injectable } from '@nestjs/common';

/** The wall clock, injected so that tests can move time instead of waiting for it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** A step back smaller than this is not told apart from scheduling jitter; NTP slews such small errors anyway. */
const STEP_TOLERANCE_MS = 2000;

/**
 * Notices the wall clock stepping back (an operator or NTP setting it), by comparing how far it moved with how far
 * the monotonic clock did since the last look. Schedules stored as wall-clock times (a trigger's next slot, a
 * lease's end) then lie further ahead than they can, and would stall until the clock catches up with them.
 */
export class ClockStepWatch {
  private lastWallMs: number;
  private lastMonotonicMs: number;

  constructor(
    private readonly clock: Clock,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {
    this.lastWallMs = clock.now().getTime();
    this.lastMonotonicMs = this.monotonicMs();
  }

  /** Whether the wall clock stepped back since the last call (or since construction). */
  steppedBack(): boolean {
    const wallMs = this.clock.now().getTime();
    const monotonicMs = this.monotonicMs();
    const stepped = monotonicMs - this.lastMonotonicMs - (wallMs - this.lastWallMs) > STEP_TOLERANCE_MS;
    this.lastWallMs = wallMs;
    this.lastMonotonicMs = monotonicMs;
    return stepped;
  }
}
