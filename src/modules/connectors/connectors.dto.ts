import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageQuery } from '../../common/http/cursor-page';
import { BrowseResult } from './connector-driver';
import { CONNECTOR_ERROR_TYPES, ConnectorErrorType } from './connector-error';
import { maskConfig } from './connector-secrets';
import { CONNECTOR_TYPES, ConnectorType, descriptorOf } from './connector-types';
import { CONNECTOR_STATUSES, ConnectorStatus } from './connector.entity';
import { CONNECTORS } from './drivers';
import { Connector, TestResult } from './connectors.service';

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

const ERROR_TYPES = Object.keys(CONNECTOR_ERROR_TYPES);

const perTypeFacts = (description: string): Parameters<typeof ApiProperty>[0] => ({
  type: 'object',
  additionalProperties: true,
  description,
});

export class ConnectorResponse {
  @ApiProperty({ example: 'con_0mh3k2l1a09f3c2b7d4e5f6a7b' })
  id!: string;
  @ApiProperty()
  name!: string;
  @ApiProperty({
    enum: CONNECTOR_TYPES,
    description: 'The canonical type (an alias given at creation resolved).',
  })
  connector_type!: ConnectorType;
  @ApiPropertyOptional({ description: 'Stored beside the type where one is named (azure → azure_blob).' })
  provider?: string;
  @ApiProperty({ enum: CONNECTOR_STATUSES, description: '`untested` until a test; `live` or `error` after.' })
  status!: ConnectorStatus;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why the last test failed, if it did.' })
  error_message!: string | null;
  @ApiPropertyOptional({ enum: ERROR_TYPES, description: 'The error type of the last failed test.' })
  error_type?: string;
  @ApiProperty(
    perTypeFacts(
      'The stored config of connector_type (defaults applied, aliases resolved), secrets masked as ' +
        '"********"; GET /v1/connectors/types lists the fields of each type.',
    ),
  )
  config!: Record<string, unknown>;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  last_tested_at!: string | null;
  @ApiProperty({ format: 'date-time' })
  created_at!: string;
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class ConnectorListResponse {
  @ApiProperty({ type: [ConnectorResponse] })
  connectors!: ConnectorResponse[];
  @ApiProperty({ type: 'string', nullable: true })
  next_cursor!: string | null;
}

export class ConnectorTestResponse {
  @ApiProperty()
  success!: boolean;
  @ApiProperty({
    enum: ['live', 'ok', 'error'],
    description: '`ok` for a REST connector, `live` for the others.',
  })
  status!: TestResult['status'];
  @ApiProperty({ example: 12.5 })
  latency_ms!: number;
  @ApiProperty()
  message!: string;
  @ApiPropertyOptional({
    enum: ERROR_TYPES,
    description: 'On failure: what went wrong (docs/connectors.md).',
  })
  error_type?: ConnectorErrorType;
  @ApiPropertyOptional({
    description: 'On failure: whether fixing the input or credentials and retrying can help.',
  })
  recoverable?: boolean;
  @ApiPropertyOptional(
    perTypeFacts('On success: facts of the source, per type (server version, database...).'),
  )
  details?: Readonly<Record<string, unknown>>;
}

export class BrowseColumnResponse {
  @ApiProperty()
  name!: string;
  @ApiProperty()
  type!: string;
}

export class BrowseItemResponse {
  @ApiProperty()
  name!: string;
  @ApiProperty({ example: 'table', description: 'table, view, sheet, object, field, index, key_pattern...' })
  kind!: string;
  @ApiPropertyOptional({ description: 'The SQL schema of a table or view.' })
  schema?: string;
  @ApiPropertyOptional({ description: 'The type of a field or file, the value type of a key pattern.' })
  type?: string;
  @ApiPropertyOptional({ type: [BrowseColumnResponse] })
  columns?: readonly BrowseColumnResponse[];
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Rows, documents, nodes or keys, where the source says.',
  })
  rows?: number;
  @ApiPropertyOptional({ type: 'integer', description: 'Bytes of an object or file.' })
  size?: number;
}

export class ConnectorBrowseResponse {
  @ApiProperty({ enum: CONNECTOR_TYPES })
  connector_type!: ConnectorType;
  @ApiProperty({ type: [BrowseItemResponse] })
  items!: readonly BrowseItemResponse[];
  @ApiProperty({ type: 'integer', description: 'How many the source holds; items may show fewer.' })
  total!: number;
  @ApiProperty()
  message!: string;
  @ApiProperty(perTypeFacts('Facts of the source, per type (database, server, commit...).'))
  discovery!: Readonly<Record<string, unknown>>;
}

export function toConnectorResponse(connector: Connector): ConnectorResponse {
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

export function toTestResponse(result: TestResult): ConnectorTestResponse {
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
): ConnectorBrowseResponse {
  return {
    connector_type: result.connectorType,
    items: result.items,
    total: result.total,
    message: result.message,
    discovery: result.discovery,
  };
}
