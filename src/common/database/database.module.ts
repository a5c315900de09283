import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { EntitySchema, MikroORM } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../config';
import { APP_LOGGER, AppLogger } from '../logging';
import { WindowCounters } from '../rate-limits';
import { registerEntities } from './entity-registry';
import { AppStateRepository } from './app-state.repository';
import { openDatabase, storeLocationOf, StoreOrm } from './orm';
import { ReplicaLock } from './replica-lock';
import { StoreHealth } from './store-health';
import { WorkLeases } from './work-leases';

/**
 * Provides the migrated MikroORM instance and its root EntityManager. Repositories fork the EntityManager per unit
 * of work (`em.fork()` or `em.transactional()`), so background workers and requests never share an identity map.
 */
@Global()
@Module({
  providers: [
    {
      provide: MikroORM,
      inject: [APP_CONFIG, APP_LOGGER],
      useFactory: (config: AppConfig, logger: AppLogger) =>
        openDatabase(storeLocationOf(config), (message) =>
          logger.warn({ event: 'store_connection_dropped', reason: message }, 'database connection dropped'),
        ),
    },
    { provide: EntityManager, inject: [MikroORM], useFactory: (orm: StoreOrm) => orm.em },
    AppStateRepository,
    WorkLeases,
    StoreHealth,
    ReplicaLock,
    WindowCounters,
  ],
  exports: [MikroORM, EntityManager, AppStateRepository, WorkLeases, StoreHealth, WindowCounters],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(MikroORM) private readonly orm: StoreOrm) {}

  /** Domain modules declare their entity schemas here; they must be imported before the ORM starts. */
  static forFeature(schemas: readonly EntitySchema[]): DynamicModule {
    registerEntities(schemas);
    return { module: DatabaseFeatureModule };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.orm.close(true);
  }
}

@Module({})
class DatabaseFeatureModule {}
