import { Module } from '@nestjs/common';
import { LicensingService } from '../licensing/licensing.service';
import { LICENSE_SUMMARY } from './license-summary';
import { PrivacyController } from './privacy.controller';
import { PrivacyService } from './privacy.service';

/** The signed privacy report; EgressModule (global) provides the guard and the decision log. */
@Module({
  controllers: [PrivacyController],
  providers: [PrivacyService, { provide: LICENSE_SUMMARY, useExisting: LicensingService }],
})
export class PrivacyModule {}
