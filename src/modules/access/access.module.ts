import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AuditModule } from '../audit/audit.module';
import { AccessGuard } from './access.guard';
import { CREDENTIAL_RESOLVER } from './access.types';
import { ApiKeyOrSessionResolver } from './credential.resolver';
import { KeyFailureThrottle } from './key-failure-throttle';

/** DEVICE_BINDER is not provided here on purpose: see device-binder.ts. */
@Module({
  imports: [AccountsModule, ApiKeysModule, AuditModule],
  providers: [
    KeyFailureThrottle,
    { provide: CREDENTIAL_RESOLVER, useClass: ApiKeyOrSessionResolver },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
})
export class AccessModule {}
