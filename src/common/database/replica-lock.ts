import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Client } from 'pg';
import { APP_CONFIG, AppConfig } from '../config';
import { APP_LOGGER, AppLogger } from '../logging';
import { POSTGRES_CONNECT_TIMEOUT_MS } from './orm';
import { WorkLeases } from './work-leases';

/**
 * One advisory-lock number, the same in every version: every daemon on PostgreSQL holds it shared while it runs, and
 * `rekey` takes it exclusively, so stored secrets are never resealed under a replica still on the old key.
 */
export const REPLICA_LOCK = 4_410_002;

/** How a replica's lock session names itself in `pg_stat_activity`, so `rekey` can say which replicas still run. */
export const REPLICA_APPLICATION_NAME = 'decision-service';

const RETRY_MS = 5000;

/**
 * Holds REPLICA_LOCK shared on a session of its own (not a pooled connection: the lock lives as long as the session).
 * A start while `rekey` runs waits for it to finish. A lost session is opened again and the lock taken again every
 * RETRY_MS; until then `rekey` would not see this replica, which the rotation procedure covers by stopping every
 * replica first (docs/scale-out.md). On SQLite it does nothing: one appliance, stopped before `rekey`.
 */
@Injectable()
export class ReplicaLock implements OnModuleInit, OnApplicationShutdown {
  private client?: Client;
  private retry?: NodeJS.Timeout;
  private isClosed = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly leases: WorkLeases,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.databaseUrl) await this.take(this.config.databaseUrl);
  }

  private async take(url: string): Promise<void> {
    const client = new Client({
      connectionString: url,
      application_name: `${REPLICA_APPLICATION_NAME} ${this.leases.owner}`,
      connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    client.on('error', (error) => this.lost(url, client, error));
    try {
      await client.connect();
      const taken = await client.query<{ held: boolean }>('select pg_try_advisory_lock_shared($1) as held', [
        REPLICA_LOCK,
      ]);
      if (!taken.rows[0].held) {
        this.logger.info(
          { event: 'replica_lock_waiting' },
          'rekey holds this database; waiting for it to finish before starting',
        );
        await client.query('select pg_advisory_lock_shared($1)', [REPLICA_LOCK]);
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  private lost(url: string, client: Client, error: Error): void {
    if (this.isClosed || this.client !== client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.logger.warn(
      { event: 'replica_lock_lost', reason: error.message },
      'the replica lock session dropped; taking it again',
    );
    this.retakeLater(url);
  }

  private retakeLater(url: string): void {
    this.retry = setTimeout(() => {
      this.take(url).catch(() => {
        if (!this.isClosed) this.retakeLater(url);
      });
    }, RETRY_MS);
    this.retry.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.isClosed = true;
    clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }
}
