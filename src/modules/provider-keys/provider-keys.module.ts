import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { ProviderKeySchema } from './provider-key.entity';
import { ProviderKeyRepository } from './provider-key.repository';
import { ProviderKeysController } from './provider-keys.controller';
import { ProviderKeysService } from './provider-keys.service';

@Module({
  imports: [DatabaseModule.forFeature([ProviderKeySchema])],
  controllers: [ProviderKeysController],
  providers: [ProviderKeyRepository, ProviderKeysService],
  exports: [ProviderKeysService],
})
export class ProviderKeysModule {}
