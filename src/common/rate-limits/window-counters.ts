import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import { APP_CONFIG, AppConfig } from '../config';
import { WindowCounter } from './window-counter';

/** Created by Migration1080RateLimits; the library never issues DDL. */
const TABLE = 'rate_limits';

/**
 * Makes the counters behind every throttle: in memory for one appliance on SQLite, in the store when replicas run
 * on PostgreSQL (SERVICE_DATABASE_URL), where a limit kept per process would multiply by the number of replicas.
 */
@Injectable()
export class WindowCounters {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly em: EntityManager,
  ) {}

  /** `name` prefixes the counter's keys in the shared store; keep it stable. A window of 0 never ends. */
  create(name: string, limit: number, windowS: number): WindowCounter {
    const options = { keyPrefix: name, points: limit, duration: windowS };
    if (this.config.databaseUrl === undefined) return new WindowCounter(new RateLimiterMemory(options));
    return new WindowCounter(
      new RateLimiterPostgres({
        ...options,
        storeClient: this.em.getConnection().getKnex(),
        storeType: 'knex',
        tableName: TABLE,
        tableCreated: true,
      }),
    );
  }
}
