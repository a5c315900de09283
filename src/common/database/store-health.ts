import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/core';
import { dialectOf } from './dialect';
import type { StoreOrm } from './orm';

/** A readiness probe answers within this, whatever the database does. */
const PROBE_TIMEOUT_MS = 2000;

export type StoreStatus = 'ok' | 'unavailable';

/**
 * Whether the shared PostgreSQL database answers, for readiness: a replica that cannot reach it serves nothing but
 * 503 `store_unavailable`, so its balancer should route elsewhere. The SQLite file of one appliance is always
 * there; it is not probed (a probe would queue behind its one writer).
 */
@Injectable()
export class StoreHealth {
  constructor(@Inject(MikroORM) private readonly orm: StoreOrm) {}

  async status(): Promise<StoreStatus> {
    if (dialectOf(this.orm.em.getPlatform()) !== 'postgresql') return 'ok';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<StoreStatus>((resolve) => {
      timer = setTimeout(() => resolve('unavailable'), PROBE_TIMEOUT_MS);
    });
    const probe = this.orm.em
      .getConnection()
      .execute('select 1')
      .then(
        (): StoreStatus => 'ok',
        (): StoreStatus => 'unavailable',
      );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
