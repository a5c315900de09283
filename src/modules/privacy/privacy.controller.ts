import { applyDecorators, Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProduces, getSchemaPath, ApiOperation } from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import {
  PrivacyReportListQuery,
  PrivacyReportListResponse,
  PrivacyReportResponse,
  ReportFormatQuery,
  ReportPublicKeyResponse,
  toPrivacyReportSummary,
  toPublicKeyResponse,
} from './privacy.dto';
import { PrivacyReportRecord } from './privacy-report.entity';
import { PrivacyService } from './privacy.service';
import { CONTENT_SECURITY_POLICY } from './report-page';
import { chooseReportFormat, ReportFormat } from './report-format';

const ApiReportRepresentations = (): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(PrivacyReportResponse),
    ApiProduces('application/json', 'text/html'),
    ApiOkResponse({
      description:
        'The signed report: its exact canonical bytes as JSON, or the self-contained page showing it.',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(PrivacyReportResponse) } },
        'text/html': { schema: { type: 'string', description: 'A page with no external asset.' } },
      },
    }),
  );

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
@ApiErrors('forbidden')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  /** JSON is the exact signed bytes (canonical JSON), so a saved response verifies byte for byte. */
  @Get()
  @ApiReportRepresentations()
  @ApiOperation({
    summary: 'Generate a privacy report',
    description:
      'Operator administrators only (else 403 `forbidden`). Builds a fresh signed report, a 24-hour egress summary included, adds it to the report chain, and answers it as JSON (the exact signed bytes) or HTML, by `format` or the Accept header.',
  })
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
  @ApiOkResponse({ type: ReportPublicKeyResponse })
  @ApiOperation({
    summary: 'Get the public key that verifies privacy reports',
    description: 'Operator administrators only (else 403 `forbidden`).',
  })
  publicKey(@CurrentPrincipal() principal: Principal): ReportPublicKeyResponse {
    return toPublicKeyResponse(this.privacy.publicKey(principal));
  }
}

@Controller('v1/admin/privacy-reports')
@RequireRole('admin')
@ApiErrors('forbidden')
export class PrivacyReportsController {
  constructor(private readonly privacy: PrivacyService) {}

  @Get()
  @ApiOkResponse({ type: PrivacyReportListResponse, description: 'Newest first.' })
  @ApiOperation({
    summary: 'List privacy reports',
    description:
      'Operator administrators only (else 403 `forbidden`). Newest first, 50 a page unless `limit` says otherwise.',
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PrivacyReportListQuery,
  ): Promise<PrivacyReportListResponse> {
    const page = await this.privacy.listReports(principal, query.limit ?? 50, query.cursor);
    return { reports: page.reports.map(toPrivacyReportSummary), next_cursor: page.nextCursor };
  }

  @Get(':id')
  @ApiReportRepresentations()
  @ApiErrors('not_found')
  @ApiOperation({
    summary: 'Get a privacy report',
    description:
      'Operator administrators only (else 403 `forbidden`). As JSON (the exact signed bytes) or HTML, by `format` or the Accept header.',
  })
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
