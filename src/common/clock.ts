import { Injectable } from '@nestjs/common';

// Injected so that tests can move time instead of waiting for it.
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** A step back smaller than this is not told apart from scheduling jitter; NTP slews such small errors anyway. */
const STEP_TOLERANCE_MS = 2000;

// Schedules stored as wall-clock times (a trigger's next slot, a lease's end) would stall after a step back until the
// clock caught up.
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

  steppedBack(): boolean {
    const wallMs = this.clock.now().getTime();
    const monotonicMs = this.monotonicMs();
    const stepped = monotonicMs - this.lastMonotonicMs - (wallMs - this.lastWallMs) > STEP_TOLERANCE_MS;
    this.lastWallMs = wallMs;
    this.lastMonotonicMs = monotonicMs;
    return stepped;
  }
}
