import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuditModule } from '../audit/audit.module';
import { DevicesModule } from '../devices/devices.module';
import { AccessGuard } from './access.guard';
import { CREDENTIAL_RESOLVER } from './access.types';
import { ApiKeyOrSessionResolver } from './credential.resolver';
import { KeyFailureThrottle } from './key-failure-throttle';

@Module({
  imports: [AccountsModule, ApiKeysModule, AuditModule, DevicesModule],
  providers: [
    KeyFailureThrottle,
    { provide: CREDENTIAL_RESOLVER, useClass: ApiKeyOrSessionResolver },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
})
export class AccessModule {}
