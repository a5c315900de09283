import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyInstance } from 'fastify';
import { DatabaseModule } from '../../common/database';
import { MetricsModule } from '../../common/metrics/metrics.module';
import { AccountsModule } from '../accounts/accounts.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { StorageQuotaModule } from '../storage-quota/storage-quota.module';
import { ConnectorSchema } from './connector.entity';
import { ConnectorRepository } from './connector.repository';
import { ConnectorUploads, STREAMED_CONTENT_TYPES } from './connector-uploads';
import { ConnectorsController } from './connectors.controller';
import { ConnectorsService } from './connectors.service';
import { ImportAreas } from './import-areas';
import { LeftoverFileSweeper } from './leftover-files';
import { ParseThreadMetrics } from './parse-thread.metrics';
import { PreviewRateLimiter } from './preview-rate-limiter';

@Module({
  imports: [
    IdempotencyModule,
    DatabaseModule.forFeature([ConnectorSchema]),
    AccountsModule,
    StorageQuotaModule,
    MetricsModule,
  ],
  controllers: [ConnectorsController],
  providers: [
    ConnectorsService,
    ConnectorRepository,
    PreviewRateLimiter,
    ConnectorUploads,
    LeftoverFileSweeper,
    ImportAreas,
    ParseThreadMetrics,
  ],
  exports: [ConnectorsService],
})
export class ConnectorsModule implements OnModuleInit {
  constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

  /** Upload bodies reach the route as a stream, so the JSON body limit never applies and nothing is buffered. */
  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || fastify.hasContentTypeParser('application/octet-stream')) return;
    fastify.addContentTypeParser(STREAMED_CONTENT_TYPES, (_request, payload, done) => done(null, payload));
  }
}
