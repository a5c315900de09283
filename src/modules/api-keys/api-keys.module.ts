import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { AuditModule } from '../audit/audit.module';
import { DevicesModule } from '../devices/devices.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ApiKeySchema } from './api-key.entity';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [IdempotencyModule, DatabaseModule.forFeature([ApiKeySchema]), AuditModule, DevicesModule],
  controllers: [ApiKeysController],
  providers: [ApiKeyRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
