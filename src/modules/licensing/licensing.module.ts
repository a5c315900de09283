import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CommunityEntitlements } from './community-entitlements';
import { EntitlementGuard } from './entitlement.guard';
import { ENTITLEMENT_SOURCE } from './entitlements';

@Global()
@Module({
  providers: [
    { provide: ENTITLEMENT_SOURCE, useClass: CommunityEntitlements },
    { provide: APP_GUARD, useClass: EntitlementGuard },
  ],
  exports: [ENTITLEMENT_SOURCE],
})
export class LicensingModule {}
