import { Global, Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { IdempotencyRecordSchema } from './idempotency-record.entity';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyPruner } from './idempotency-pruner';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** Global so that any controller's `@Idempotent()` route can build the interceptor in its own module. */
@Global()
@Module({
  imports: [DatabaseModule.forFeature([IdempotencyRecordSchema])],
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyPruner],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
