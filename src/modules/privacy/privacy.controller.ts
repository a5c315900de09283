import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { PrivacyReportListQuery, toPrivacyReportSummary, toPublicKeyResponse } from './privacy.dto';
import { PrivacyService } from './privacy.service';

@Controller('v1/admin/privacy-report')
@RequireRole('admin')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  /** Served as the exact signed bytes (canonical JSON), so a saved response verifies byte for byte. */
  @Get()
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('cache-control', 'no-store')
  async report(@CurrentPrincipal() principal: Principal): Promise<string> {
    return (await this.privacy.serveFreshReport(principal)).document;
  }

  @Get('public-key')
  publicKey(@CurrentPrincipal() principal: Principal): { public_key_pem: string; kid: string } {
    return toPublicKeyResponse(this.privacy.publicKey(principal));
  }
}

@Controller('v1/admin/privacy-reports')
@RequireRole('admin')
export class PrivacyReportsController {
  constructor(private readonly privacy: PrivacyService) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PrivacyReportListQuery) {
    const page = await this.privacy.listReports(principal, query.limit ?? 50, query.cursor);
    return { reports: page.reports.map(toPrivacyReportSummary), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @Header('content-type', 'application/json; charset=utf-8')
  @Header('cache-control', 'no-store')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<string> {
    return (await this.privacy.findReport(principal, id)).document;
  }
}
