import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { KEY_POLICY } from '../api-keys/key-policy';
import { EntitlementGuard } from './entitlement.guard';
import { ENTITLEMENT_SOURCE } from './entitlements';
import { LicenseClock } from './license-clock';
import { LicenseKeyPolicy } from './license-key-policy';
import { LicensingController } from './licensing.controller';
import { LicensingService } from './licensing.service';

@Global()
@Module({
  controllers: [LicensingController],
  providers: [
    LicenseClock,
    LicensingService,
    { provide: ENTITLEMENT_SOURCE, useExisting: LicensingService },
    { provide: KEY_POLICY, useClass: LicenseKeyPolicy },
    { provide: APP_GUARD, useClass: EntitlementGuard },
  ],
  exports: [ENTITLEMENT_SOURCE, KEY_POLICY, LicensingService],
})
export class LicensingModule {}
