import { Inject, Injectable } from '@nestjs/common';
import { BoundedWorkQueue, WorkQueueFullError } from '../bounded-work-queue';
import { APP_CONFIG, AppConfig } from '../config';
import { AppError } from '../errors';
import { burnPasswordCheck, hashPassword, verifyPassword } from './password';

/** A full queue drains in about this long at the default sizes; the refused client is told to wait as much. */
const RETRY_AFTER_MS = 1000;

// scrypt shares libuv's thread pool with the SQLite driver: unbounded, a login burst would queue every store query.
@Injectable()
export class PasswordHasher {
  private readonly queue: BoundedWorkQueue;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.queue = new BoundedWorkQueue(config.passwordHashConcurrency, config.passwordHashQueue);
  }

  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password));
  }

  verify(password: string, stored: string): Promise<boolean> {
    return this.run(() => verifyPassword(password, stored));
  }

  /** Spends the work of a verification without a stored hash, so an unknown account answers as slowly. */
  burn(password: string): Promise<void> {
    return this.run(() => burnPasswordCheck(password));
  }

  private async run<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await this.queue.run(task);
    } catch (error) {
      if (!(error instanceof WorkQueueFullError)) throw error;
      throw AppError.retryLater(
        'rate_limited',
        RETRY_AFTER_MS,
        'Too many password checks are waiting on this appliance: retry later.',
      );
    }
  }
}
