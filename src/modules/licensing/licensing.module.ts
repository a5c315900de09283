import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { EntitlementGuard } from './entitlement.guard';
import { ENTITLEMENT_SOURCE } from '../../common/auth/entitlements';
import { LicenseClock } from './license-clock';
import { LicensingController } from './licensing.controller';
import { LicensingService } from './licensing.service';

@Module({
  controllers: [LicensingController],
  providers: [
    LicenseClock,
    LicensingService,
    { provide: ENTITLEMENT_SOURCE, useExisting: LicensingService },
    { provide: APP_GUARD, useClass: EntitlementGuard },
  ],
  exports: [ENTITLEMENT_SOURCE, LicensingService],
})
export class LicensingModule {}
