import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BackgroundLoop } from '../../common/background-loop';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { PrivacyReportRepository } from './privacy-report.repository';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

@Injectable()
export class PrivacyReportRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop = new BackgroundLoop(
    async () => void (await this.prune()),
    PRUNE_INTERVAL_MS,
    (error) =>
      this.logger.error(
        { event: 'privacy_reports_prune_failed', err: error },
        'privacy report pruning failed',
      ),
  );

  constructor(
    private readonly history: PrivacyReportRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  async prune(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.privacyReportRetentionDays * DAY_MS);
    const removed = await this.history.pruneBefore(cutoff);
    if (removed > 0) {
      this.logger.info(
        { event: 'privacy_reports_pruned', removed, cutoff: cutoff.toISOString() },
        'old privacy reports removed',
      );
    }
    return removed;
  }
}
