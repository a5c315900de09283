import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { BrowseResult } from './connector-driver';
import { maskConfig } from './connector-secrets';
import { ConnectorType, descriptorOf } from './connector-types';
import { CONNECTORS } from './drivers';
import { Connector, TestResult } from './connectors.service';

/**
 * The optional `config` of a connector request: the config of one type, described per type in the contract (each
 * type's config class); validated by the service against the class of the request's type.
 */
function ConnectorConfig(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    IsObject(),
    ApiPropertyOptional({
      description:
        'The config of connector_type (for PATCH: of the stored type), one of the per-type schemas; secrets are ' +
        'write-only. See docs/connectors.md and GET /v1/connectors/types.',
      anyOf: CONNECTORS.map((descriptor) =>
        descriptor.openConfig
          ? { type: 'object', additionalProperties: true, description: `${descriptor.name}: any flat object` }
          : { $ref: getSchemaPath(descriptor.config) },
      ),
      example: { file_type: 'csv', content: 'id,score\n1,10\n' },
    }),
  );
}

export class CreateConnectorRequest {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  /** Unknown or missing → 422 invalid_type listing the valid set (checked by the service). */
  @IsOptional()
  @IsString()
  connector_type?: string;

  @ConnectorConfig()
  config?: Record<string, unknown>;
}

export class UpdateConnectorRequest {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ConnectorConfig()
  config?: Record<string, unknown>;
}

export class InlineConnectorRequest {
  @IsOptional()
  @IsString()
  connector_type?: string;

  @ConnectorConfig()
  config?: Record<string, unknown>;
}

export class ListConnectorsQuery extends CursorPageQuery {}

export function maskedConfig(type: ConnectorType, values: unknown): Record<string, unknown> {
  return maskConfig(values as Record<string, unknown>, descriptorOf(type).openConfig === true);
}

export function toConnectorResponse(connector: Connector): Record<string, unknown> {
  return {
    id: connector.id,
    name: connector.name,
    connector_type: connector.connectorType,
    ...(connector.provider ? { provider: connector.provider } : {}),
    status: connector.status,
    error_message: connector.errorMessage,
    ...(connector.errorType ? { error_type: connector.errorType } : {}),
    config: maskedConfig(connector.connectorType, connector.config.values),
    last_tested_at: connector.lastTestedAt,
    created_at: connector.createdAt,
    updated_at: connector.updatedAt,
  };
}

export function toTestResponse(result: TestResult): Record<string, unknown> {
  return {
    success: result.success,
    status: result.status,
    latency_ms: result.latencyMs,
    message: result.message,
    ...(result.errorType !== undefined
      ? { error_type: result.errorType, recoverable: result.recoverable }
      : {}),
    ...(result.details ? { details: result.details } : {}),
  };
}

export function toBrowseResponse(
  result: BrowseResult & { connectorType: ConnectorType },
): Record<string, unknown> {
  return {
    connector_type: result.connectorType,
    items: result.items,
    total: result.total,
    message: result.message,
    discovery: result.discovery,
  };
}
