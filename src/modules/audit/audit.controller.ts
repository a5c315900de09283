import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { AuditLogQuery, AuditLogResponse, toAuditEventResponse } from './audit.dto';
import { AuditService } from './audit.service';

@Controller('v1/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** Newest first; `since` is an exclusive lower bound on `created_at`. */
  @Get()
  @RequireRole('admin')
  @ApiOkResponse({ type: AuditLogResponse })
  @ApiOperation({
    summary: 'List audit-log events',
    description:
      'Newest first, 100 unless `limit` (at most 1000) says otherwise; `since` keeps the events strictly after that time. Not paged by cursor.',
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditLogQuery,
  ): Promise<AuditLogResponse> {
    const events = await this.audit.list({
      orgId: principal.orgId,
      isOperatorOrg: principal.isOperatorOrg,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      limit: query.limit ?? 100,
    });
    return { events: events.map(toAuditEventResponse) };
  }
}
