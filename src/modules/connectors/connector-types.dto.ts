import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FIELD_KINDS } from './config-fields';
import { CONNECTOR_FAMILIES, ConnectorFamily } from './connector-descriptor';
import { ACCEPTED_TYPE_NAMES, CONNECTOR_TYPES, ConnectorType } from './connector-types';

/** The `type` of a listed field: its kind, an enum listed as a string with its `values`. */
const LISTED_KINDS = FIELD_KINDS.filter((kind) => kind !== 'enum');

/** One config field as `GET /v1/connectors/types` lists it. */
export class ConfigFieldDescription {
  @ApiProperty({ example: 'port' })
  name!: string;

  @ApiProperty({ enum: LISTED_KINDS, description: 'An enum is a string listing its `values`.' })
  type!: string;

  @ApiProperty({ description: 'Always required; see conditionally_required for the others.' })
  required!: boolean;

  @ApiPropertyOptional({
    enum: [true],
    description: 'Required or not depending on other fields (its description says when).',
  })
  conditionally_required?: true;

  @ApiProperty({ description: 'Write-only: masked in every answer.' })
  secret!: boolean;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }],
    description: 'The value stored when the field is missing.',
  })
  default?: unknown;

  @ApiPropertyOptional({ type: [String], description: 'Other accepted names.' })
  aliases?: readonly string[];

  @ApiPropertyOptional({
    type: [String],
    description: 'The accepted values of an enum, matched without case.',
  })
  values?: readonly string[];

  @ApiPropertyOptional()
  description?: string;

  @ApiPropertyOptional({
    type: () => [ConfigFieldDescription],
    description: 'A nested object’s own fields (REST `pagination`, `auth`).',
  })
  fields?: readonly ConfigFieldDescription[];
}

export class ConnectorTypeDescription {
  @ApiProperty({ enum: CONNECTOR_TYPES })
  type!: ConnectorType;

  @ApiProperty({ enum: CONNECTOR_FAMILIES })
  family!: ConnectorFamily;

  @ApiProperty({ type: [String], description: 'Other names connector_type accepts for this type.' })
  aliases!: readonly string[];

  @ApiProperty({
    description: 'Any flat object is kept as given (secret-looking names masked); `fields` is empty.',
  })
  open_config!: boolean;

  @ApiProperty({ type: [ConfigFieldDescription] })
  fields!: readonly ConfigFieldDescription[];
}

/** `GET /v1/connectors/types`: every name connector_type accepts, and each canonical type's config fields. */
export class ConnectorTypesResponse {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...ACCEPTED_TYPE_NAMES] },
    description: 'Canonical types, then aliases.',
  })
  types!: readonly string[];

  @ApiProperty({ type: [ConnectorTypeDescription] })
  descriptions!: readonly ConnectorTypeDescription[];
}
