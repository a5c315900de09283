import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from './common/config';
import { CoreModule } from './common/core.module';
import { CryptoModule } from './common/crypto';
import { DatabaseModule } from './common/database';
import { AppLogger } from './common/logging';
import { AccessModule } from './modules/access/access.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuditModule } from './modules/audit/audit.module';
import { HealthModule } from './modules/health/health.module';
import { LicensingModule } from './modules/licensing/licensing.module';
import { RepohostModule } from './modules/repohost/repohost.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: AppLogger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, logger),
        DatabaseModule,
        CryptoModule,
        HealthModule,
        AccessModule,
        AccountsModule,
        ApiKeysModule,
        AuditModule,
        LicensingModule,
        RepohostModule,
      ],
    };
  }
}
