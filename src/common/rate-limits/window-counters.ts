import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../config';
import { SharedWindowCounter } from './shared-window-counter';
import { MemoryWindowCounter, WindowCounter } from './window-counter';

/**
 * Makes the counters behind login throttling, reset mails and the preview rate limit: in memory for one appliance,
 * in the shared store when replicas run on PostgreSQL (SERVICE_DATABASE_URL), where a limit kept per process would
 * multiply by the number of replicas behind the load balancer.
 */
@Injectable()
export class WindowCounters {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly em: EntityManager,
  ) {}

  /** `name` identifies the counter in the shared store; keep it stable across versions. */
  create(name: string, limit: number, windowMs: number): WindowCounter {
    return this.config.databaseUrl === undefined
      ? new MemoryWindowCounter(limit, windowMs)
      : new SharedWindowCounter(this.em, name, limit, windowMs);
  }
}
