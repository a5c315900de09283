import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { IdempotencyService } from './idempotency.service';

const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

@Injectable()
export class IdempotencyPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new BackgroundLoop(
    async () => {
      await this.prune();
    },
    PRUNE_INTERVAL_MS,
    (error) =>
      this.logger.error(
        { event: 'idempotency_prune_failed', err: error },
        'could not prune idempotency keys',
      ),
  );

  constructor(
    private readonly idempotency: IdempotencyService,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  async prune(): Promise<number> {
    const deleted = await this.idempotency.deleteExpired();
    if (deleted > 0)
      this.logger.debug(
        { event: 'idempotency_keys_pruned', count: deleted },
        'expired idempotency keys deleted',
      );
    return deleted;
  }
}
