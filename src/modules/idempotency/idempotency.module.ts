import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { IdempotencyRecordSchema } from './idempotency-record.entity';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyPruner } from './idempotency-pruner';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** A module whose controller has an `@Idempotent()` route imports this one, so the interceptor can be built there. */
@Module({
  imports: [DatabaseModule.forFeature([IdempotencyRecordSchema])],
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyPruner],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
