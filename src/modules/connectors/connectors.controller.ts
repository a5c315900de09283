import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { FastifyRequest } from 'fastify';
import { ACCEPTS_ANY_BODY } from '../../common/http';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { Idempotent } from '../idempotency/idempotency.types';
import { ACCEPTED_TYPE_NAMES, describeConnectorTypes } from './connector-types';
import { ConnectorUploads } from './connector-uploads';
import {
  CreateConnectorRequest,
  InlineConnectorRequest,
  ListConnectorsQuery,
  toBrowseResponse,
  toConnectorResponse,
  toTestResponse,
  UpdateConnectorRequest,
} from './connectors.dto';
import { ConnectorsService } from './connectors.service';
import { PreviewRateLimiter } from './preview-rate-limiter';

/** The caller a preview rate limit counts against: the API key, else the user, else the organization. */
function previewCaller(principal: Principal): string {
  return principal.keyId ?? (principal.userId ? `user:${principal.userId}` : `org:${principal.orgId}`);
}

@Controller('v1/connectors')
@RequireEntitlement('connectors')
export class ConnectorsController {
  constructor(
    private readonly connectors: ConnectorsService,
    private readonly limiter: PreviewRateLimiter,
    private readonly uploads: ConnectorUploads,
  ) {}

  @Get('types')
  types(): object {
    return { types: ACCEPTED_TYPE_NAMES, descriptions: describeConnectorTypes() };
  }

  @Post()
  @RequireRole('member')
  @Idempotent()
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateConnectorRequest): Promise<object> {
    return toConnectorResponse(
      await this.connectors.create(p.orgId, body.name, body.connector_type, body.config ?? {}),
    );
  }

  @Get()
  async list(@CurrentPrincipal() p: Principal, @Query() query: ListConnectorsQuery): Promise<object> {
    const page = await this.connectors.list(p.orgId, query.limit, query.cursor);
    return { connectors: page.connectors.map(toConnectorResponse), next_cursor: page.nextCursor };
  }

  @Post('test')
  @RequireRole('member')
  @HttpCode(200)
  async testInline(@CurrentPrincipal() p: Principal, @Body() body: InlineConnectorRequest): Promise<object> {
    this.limiter.take(previewCaller(p));
    return toTestResponse(await this.connectors.testInline(p.orgId, body.connector_type, body.config ?? {}));
  }

  @Post('browse')
  @RequireRole('member')
  @HttpCode(200)
  async browseInline(
    @CurrentPrincipal() p: Principal,
    @Body() body: InlineConnectorRequest,
  ): Promise<object> {
    this.limiter.take(previewCaller(p));
    return toBrowseResponse(
      await this.connectors.browseInline(p.orgId, body.connector_type, body.config ?? {}),
    );
  }

  @Post('uploads')
  @RouteConfig(ACCEPTS_ANY_BODY)
  @RequireRole('member')
  @HttpCode(201)
  async upload(@CurrentPrincipal() p: Principal, @Req() request: FastifyRequest): Promise<object> {
    return this.uploads.receive(p.orgId, request);
  }

  @Get(':id')
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<object> {
    return toConnectorResponse(await this.connectors.getForOrg(p.orgId, id));
  }

  @Patch(':id')
  @RequireRole('member')
  async update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: UpdateConnectorRequest,
  ): Promise<object> {
    return toConnectorResponse(await this.connectors.update(p.orgId, id, body));
  }

  @Delete(':id')
  @RequireRole('member')
  @HttpCode(204)
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.connectors.remove(p.orgId, id);
  }

  @Post(':id/test')
  @RequireRole('member')
  @HttpCode(200)
  async test(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<object> {
    return toTestResponse(await this.connectors.test(p.orgId, id));
  }

  @Get(':id/browse')
  async browse(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<object> {
    return toBrowseResponse(await this.connectors.browse(p.orgId, id));
  }
}
