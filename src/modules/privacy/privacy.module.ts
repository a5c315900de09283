import { Module } from '@nestjs/common';
import { DatabaseModule } from '../../common/database';
import { LicensingModule } from '../licensing/licensing.module';
import { PrivacyReportSchema } from './privacy-report.entity';
import { PrivacyReportRepository } from './privacy-report.repository';
import { PrivacyReportRetention } from './privacy-report-retention.service';
import { PrivacyController, PrivacyReportsController } from './privacy.controller';
import { PrivacyService } from './privacy.service';

@Module({
  imports: [DatabaseModule.forFeature([PrivacyReportSchema]), LicensingModule],
  controllers: [PrivacyController, PrivacyReportsController],
  providers: [PrivacyService, PrivacyReportRepository, PrivacyReportRetention],
})
export class PrivacyModule {}
