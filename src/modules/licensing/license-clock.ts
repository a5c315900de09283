import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { AppStateRepository } from '../../common/database';
import { APP_LOGGER, AppLogger } from '../../common/logging';

const LATEST_OBSERVED_KEY = 'license.latest_observed_time';
export const CLOCK_ROLLBACK_TOLERANCE_MS = 60 * 60 * 1000;
const PERSIST_INTERVAL_MS = 5 * 60 * 1000;

export interface ClockRollback {
  readonly wallClock: string;
  readonly latestRecorded: string;
}

/** Never earlier than the latest recorded time, so turning the wall clock back never revives an expired license. */
@Injectable()
export class LicenseClock implements BeforeApplicationShutdown {
  private latest = 0;
  private persisted = 0;
  private timer?: NodeJS.Timeout;
  private detected?: ClockRollback;

  constructor(
    private readonly appState: AppStateRepository,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async start(): Promise<void> {
    const recorded = Date.parse((await this.appState.get(LATEST_OBSERVED_KEY)) ?? '');
    this.latest = Number.isFinite(recorded) ? recorded : 0;
    this.now();
    await this.persist();
    this.timer = setInterval(() => void this.persist(), PERSIST_INTERVAL_MS);
    this.timer.unref();
  }

  now(): Date {
    const wall = Date.now();
    if (wall > this.latest) {
      this.latest = wall;
    } else if (this.latest - wall > CLOCK_ROLLBACK_TOLERANCE_MS && !this.detected) {
      this.detected = {
        wallClock: new Date(wall).toISOString(),
        latestRecorded: new Date(this.latest).toISOString(),
      };
      this.logger.warn(
        {
          event: 'license_clock_rollback',
          wall_clock: this.detected.wallClock,
          latest_recorded: this.detected.latestRecorded,
        },
        'the wall clock is earlier than a time this appliance already observed; licenses are judged against the later time',
      );
    }
    return new Date(this.latest);
  }

  rollback(): ClockRollback | undefined {
    return this.detected;
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.persist();
  }

  private async persist(): Promise<void> {
    this.now();
    if (this.latest === this.persisted) return;
    const value = this.latest;
    try {
      await this.appState.set(LATEST_OBSERVED_KEY, new Date(value).toISOString());
      this.persisted = value;
    } catch (error) {
      this.logger.error(
        { event: 'license_clock_persist_failed', err: error },
        'could not record the observed time',
      );
    }
  }
}
