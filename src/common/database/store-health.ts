import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import { Clock } from '../clock';
import { storeFaultOf } from '../errors';
import { APP_LOGGER, AppLogger } from '../logging';
import { AppStateRepository } from './app-state.repository';
import { dialectOf } from './dialect';
import type { StoreOrm } from './orm';

/** A readiness probe answers within this, whatever the database does. */
const PROBE_TIMEOUT_MS = 2000;

/** How long a write probe of the SQLite file that went through stands for the readiness checks after it. */
export const WRITE_PROBE_TTL_MS = 10_000;

const WRITE_PROBE_KEY = 'store_write_probe';

export type StoreStatus = 'ok' | 'unavailable';

/**
 * Whether the store can serve writes, for readiness. PostgreSQL: `select 1` at every check. SQLite: a write, as a
 * failing or read-only disk still serves reads; at most once per WRITE_PROBE_TTL_MS while writes go through, and
 * at every check after a failure. A store failure met by any other statement ends the standing answer at once.
 */
@Injectable()
export class StoreHealth {
  private readonly isSqlite: boolean;
  private wroteAt?: number;
  private probe?: Promise<StoreStatus>;
  private isFailing = false;

  constructor(
    @Inject(MikroORM) private readonly orm: StoreOrm,
    private readonly appState: AppStateRepository,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {
    this.isSqlite = dialectOf(orm.em.getPlatform()) === 'sqlite';
    if (this.isSqlite) {
      orm.em
        .getConnection()
        .getKnex()
        .on('query-error', (error: unknown) => {
          if (storeFaultOf(error) !== undefined) this.wroteAt = undefined;
        });
    }
  }

  async status(): Promise<StoreStatus> {
    if (!this.isSqlite) {
      return withinProbeTimeout(
        this.orm.em
          .getConnection()
          .execute('select 1')
          .then(() => 'ok'),
      );
    }
    if (this.hasStandingWrite()) return 'ok';
    this.probe ??= this.probeWrite().finally(() => (this.probe = undefined));
    return withinProbeTimeout(this.probe);
  }

  private hasStandingWrite(): boolean {
    if (this.wroteAt === undefined) return false;
    const age = this.clock.now().getTime() - this.wroteAt;
    // A wall clock set back makes the age negative: that write no longer says anything about now.
    return age >= 0 && age < WRITE_PROBE_TTL_MS;
  }

  private async probeWrite(): Promise<StoreStatus> {
    const startedAt = this.clock.now();
    try {
      await this.appState.set(WRITE_PROBE_KEY, startedAt.toISOString());
    } catch (error) {
      if (!this.isFailing) {
        this.logger.warn(
          { event: 'store_not_writable', reason: (error as Error).message },
          'the database file does not take writes: not ready',
        );
      }
      this.isFailing = true;
      return 'unavailable';
    }
    this.wroteAt = startedAt.getTime();
    if (this.isFailing) {
      this.logger.info({ event: 'store_writable' }, 'the database file takes writes again');
    }
    this.isFailing = false;
    return 'ok';
  }
}

async function withinProbeTimeout(check: Promise<StoreStatus>): Promise<StoreStatus> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<StoreStatus>((resolve) => {
    timer = setTimeout(() => resolve('unavailable'), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.catch((): StoreStatus => 'unavailable'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
