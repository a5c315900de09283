import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import {
  PrivacyReportListQuery,
  ReportFormatQuery,
  toPrivacyReportSummary,
  toPublicKeyResponse,
} from './privacy.dto';
import { PrivacyReportRecord } from './privacy-report.entity';
import { PrivacyService } from './privacy.service';
import { CONTENT_SECURITY_POLICY } from './report-page';
import { chooseReportFormat, ReportFormat } from './report-format';

/** The kept bytes as JSON, or the page embedding them; either way never cached by a proxy or browser. */
function represent(
  privacy: PrivacyService,
  report: PrivacyReportRecord,
  format: ReportFormat,
  reply: FastifyReply,
): string {
  void reply.header('cache-control', 'no-store').header('vary', 'accept');
  if (format === 'json') {
    void reply.header('content-type', 'application/json; charset=utf-8');
    return report.document;
  }
  void reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', `inline; filename="privacy-report-${report.id}.html"`);
  return privacy.page(report);
}

@Controller('v1/admin/privacy-report')
@RequireRole('admin')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  /** JSON is the exact signed bytes (canonical JSON), so a saved response verifies byte for byte. */
  @Get()
  async report(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ReportFormatQuery,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const report = await this.privacy.serveFreshReport(principal);
    return represent(this.privacy, report, chooseReportFormat(query.format, accept), reply);
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
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ReportFormatQuery,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const report = await this.privacy.findReport(principal, id);
    return represent(this.privacy, report, chooseReportFormat(query.format, accept), reply);
  }
}
