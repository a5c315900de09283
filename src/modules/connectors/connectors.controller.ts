import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
} from '@nestjs/swagger';
import { FastifyRequest } from 'fastify';
import { ACCEPTS_ANY_BODY } from '../../common/http';
import { CurrentPrincipal, RequireEntitlement, RequireRole } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { ApiErrors } from '../../common/openapi';
import { Idempotent, IdempotencyOperation, IdempotentRetry } from '../idempotency/idempotency.types';
import { describeConnectorTypes } from './connector-type-descriptions';
import { ACCEPTED_TYPE_NAMES } from './connector-types';
import { ConnectorTypesResponse } from './connector-types.dto';
import { ConnectorUploads, UploadedFile } from './connector-uploads';
import {
  ConnectorBrowseResponse,
  ConnectorListResponse,
  ConnectorResponse,
  ConnectorTestResponse,
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

/** An upload is streamed, never parsed as JSON: the raw bytes, or a form whose one file part is kept. */
const UPLOAD_BODY = {
  required: true,
  description:
    'The file, as raw bytes or as a multipart form with one file part; SERVICE_MAX_UPLOAD_BYTES at most.',
  content: {
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
    'multipart/form-data': {
      schema: {
        type: 'object',
        properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } },
        required: ['file'],
      },
    },
  },
};

@Controller('v1/connectors')
@RequireEntitlement('connectors')
export class ConnectorsController {
  constructor(
    private readonly connectors: ConnectorsService,
    private readonly limiter: PreviewRateLimiter,
    private readonly uploads: ConnectorUploads,
  ) {}

  @Get('types')
  @ApiOkResponse({ type: ConnectorTypesResponse })
  @ApiOperation({
    summary: 'List connector types',
    description: 'The accepted type names, canonical and aliases, and a description of each.',
  })
  types(): ConnectorTypesResponse {
    return { types: ACCEPTED_TYPE_NAMES, descriptions: describeConnectorTypes() };
  }

  @Post()
  @RequireRole('member')
  @Idempotent<ConnectorsController>((connectors, retry) => connectors.created(retry))
  @ApiCreatedResponse({ type: ConnectorResponse, description: 'The connector, `untested`.' })
  @ApiErrors('invalid_type')
  @ApiOperation({
    summary: 'Create a connector',
    description:
      'The type is normalized (aliases, hyphens to underscores); an unknown type answers 422 `invalid_type`. A new connector is `untested`.',
  })
  async create(
    @CurrentPrincipal() p: Principal,
    @Body() body: CreateConnectorRequest,
    @IdempotencyOperation() operation: string | undefined,
  ): Promise<ConnectorResponse> {
    return toConnectorResponse(
      await this.connectors.create(p.orgId, body.name, body.connector_type, body.config ?? {}, operation),
    );
  }

  async created(retry: IdempotentRetry): Promise<ConnectorResponse | undefined> {
    const connector = await this.connectors.createdBy(retry.principal.orgId, retry.operationId);
    return connector ? toConnectorResponse(connector) : undefined;
  }

  @Get()
  @ApiOkResponse({ type: ConnectorListResponse })
  @ApiOperation({
    summary: 'List connectors',
    description: 'Oldest first, 50 a page unless `limit` says otherwise.',
  })
  async list(
    @CurrentPrincipal() p: Principal,
    @Query() query: ListConnectorsQuery,
  ): Promise<ConnectorListResponse> {
    const page = await this.connectors.list(p.orgId, query.limit, query.cursor);
    return { connectors: page.connectors.map(toConnectorResponse), next_cursor: page.nextCursor };
  }

  @Post('test')
  @RequireRole('member')
  @HttpCode(200)
  @ApiOkResponse({ type: ConnectorTestResponse, description: 'The outcome; nothing is stored.' })
  @ApiErrors('invalid_type')
  @ApiOperation({
    summary: 'Test a connector config without saving it',
    description: 'Nothing is stored. Rate limited per caller (429 `rate_limited`, with `Retry-After`).',
  })
  async testInline(
    @CurrentPrincipal() p: Principal,
    @Body() body: InlineConnectorRequest,
  ): Promise<ConnectorTestResponse> {
    await this.limiter.take(previewCaller(p));
    return toTestResponse(await this.connectors.testInline(p.orgId, body.connector_type, body.config ?? {}));
  }

  @Post('browse')
  @RequireRole('member')
  @HttpCode(200)
  @ApiOkResponse({ type: ConnectorBrowseResponse, description: 'What the source holds; nothing is stored.' })
  @ApiErrors('invalid_type', 'connector_failed')
  @ApiOperation({
    summary: 'Browse a connector config without saving it',
    description: 'Nothing is stored. Rate limited per caller (429 `rate_limited`, with `Retry-After`).',
  })
  async browseInline(
    @CurrentPrincipal() p: Principal,
    @Body() body: InlineConnectorRequest,
  ): Promise<ConnectorBrowseResponse> {
    await this.limiter.take(previewCaller(p));
    return toBrowseResponse(
      await this.connectors.browseInline(p.orgId, body.connector_type, body.config ?? {}),
    );
  }

  @Post('uploads')
  @RouteConfig(ACCEPTS_ANY_BODY)
  @RequireRole('member')
  @HttpCode(201)
  @ApiOperation({ summary: 'Upload a file for a file connector', requestBody: UPLOAD_BODY })
  @ApiHeader({ name: 'X-Filename', required: false, description: 'The file name of a raw upload.' })
  @ApiQuery({
    name: 'filename',
    type: String,
    required: false,
    description: 'The file name of a raw upload, without X-Filename.',
  })
  @ApiCreatedResponse({ type: UploadedFile })
  async upload(@CurrentPrincipal() p: Principal, @Req() request: FastifyRequest): Promise<UploadedFile> {
    return this.uploads.receive(p.orgId, request);
  }

  @Get(':id')
  @ApiOkResponse({ type: ConnectorResponse })
  @ApiErrors('not_found')
  @ApiOperation({ summary: 'Get a connector' })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ConnectorResponse> {
    return toConnectorResponse(await this.connectors.getForOrg(p.orgId, id));
  }

  @Patch(':id')
  @RequireRole('member')
  @ApiOkResponse({
    type: ConnectorResponse,
    description: 'The connector; `untested` again after a config change.',
  })
  @ApiErrors('not_found')
  @ApiOperation({
    summary: 'Update a connector',
    description: 'A change of config makes the connector `untested` again.',
  })
  async update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() body: UpdateConnectorRequest,
  ): Promise<ConnectorResponse> {
    return toConnectorResponse(await this.connectors.update(p.orgId, id, body));
  }

  @Delete(':id')
  @RequireRole('member')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('not_found')
  @ApiOperation({ summary: 'Delete a connector' })
  async remove(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    await this.connectors.remove(p.orgId, id);
  }

  @Post(':id/test')
  @RequireRole('member')
  @HttpCode(200)
  @ApiOkResponse({
    type: ConnectorTestResponse,
    description: 'The outcome, also recorded: the connector becomes `live` or `error`.',
  })
  @ApiErrors('not_found')
  @ApiOperation({
    summary: 'Test a connector',
    description: 'The outcome is recorded: the connector becomes `live`, or `error` with `error_message`.',
  })
  async test(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ConnectorTestResponse> {
    return toTestResponse(await this.connectors.test(p.orgId, id));
  }

  @Get(':id/browse')
  @ApiOkResponse({ type: ConnectorBrowseResponse })
  @ApiErrors('not_found', 'not_connected', 'connector_failed')
  @ApiOperation({
    summary: "Browse a connector's resources",
    description: 'Needs a `live` connector (else 409 `not_connected`).',
  })
  async browse(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ConnectorBrowseResponse> {
    return toBrowseResponse(await this.connectors.browse(p.orgId, id));
  }
}
