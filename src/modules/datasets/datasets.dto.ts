import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { COLUMN_ROLES, ColumnRole, ColumnSchema, ColumnValue } from './column-profile';
import { DatasetRecord } from './dataset.entity';
import { formulaSql } from './formula-sql';
import { parseExpression } from '../../common/expression/expression';
import { COLUMN_TYPES, ColumnType, EXACT_NUMERICS, ExactNumeric } from './value-kinds';
import { ReadingStatement, toNestedDto } from '../../common/validation';

export const VISIBILITIES = ['private', 'shared'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const DATASET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class ConnectDataDto {
  @IsString()
  @Length(1, 64)
  connection_type!: string;

  @IsString()
  @Matches(DATASET_NAME_PATTERN, {
    message:
      'dataset_name must be 1 to 128 letters, digits, "_", "-" or ".", starting with a letter or digit',
  })
  dataset_name!: string;

  @IsString()
  @Length(1, 128)
  connection_id!: string;

  @IsOptional()
  @IsIn(VISIBILITIES)
  visibility?: Visibility;

  @IsOptional()
  @IsString()
  @Length(1, 64)
  provider?: string;

  /** SQL connectors: a table (optionally schema-qualified) to read. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  table?: string;

  /** SQL connectors: one read-only SELECT to read instead of a table. */
  @IsOptional()
  @IsString()
  @Length(1, 100_000)
  @ReadingStatement()
  query?: string;

  /** Redis: the key pattern whose hashes or JSON values become rows (`sale:*`). */
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  pattern?: string;

  /** Redis: more matching keys than this fail the read (default 100000). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  max_keys?: number;

  /** Repositories and archives: the data file to read (CSV, JSON, Excel, Parquet), relative to the root. */
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  path?: string;

  /** Repositories: the branch, tag or commit to read at (default: the connector's ref). */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  ref?: string;

  /** Elasticsearch: the index whose documents become rows. */
  @IsOptional()
  @IsString()
  @Length(1, 255)
  index?: string;

  /** Neo4j: the label whose nodes become rows (properties as columns); give this or cypher. */
  @IsOptional()
  @IsString()
  @Length(1, 255)
  label?: string;

  /** Neo4j: one read-only Cypher query whose result becomes rows (writing clauses are refused before sending). */
  @IsOptional()
  @IsString()
  @Length(1, 100_000)
  cypher?: string;
}

const FORMULA_PROBLEM = 'must be an object {name, expression}';

export class FormulaDto {
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, {
    message: 'name must be a letter or "_" followed by up to 63 letters, digits or "_"',
  })
  name!: string;

  @IsString()
  @Length(1, 2000)
  expression!: string;
}

export class SetFormulasDto {
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true, message: FORMULA_PROBLEM })
  @Transform(({ value, obj }: { value: unknown; obj: Record<string, unknown> }) =>
    Array.isArray(value) && Array.isArray(obj.formulas)
      ? value.map((item: unknown, index) =>
          toNestedDto((obj.formulas as unknown[])[index], () => item as object, FORMULA_PROBLEM),
        )
      : value,
  )
  @Type(() => FormulaDto)
  formulas!: FormulaDto[];
}

export class ListDataQueryDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @IsOptional()
  @IsIn(['true', 'false', '1', '0'])
  compact?: string;

  @IsOptional()
  @IsIn(['true', 'false', '1', '0'])
  all_versions?: string;
}

export const FORMULA_TYPES = ['number', 'boolean'] as const;

/** A formula column as stored: its definition and the type its expression yields. */
export interface StoredFormula {
  readonly name: string;
  readonly expression: string;
  readonly type: (typeof FORMULA_TYPES)[number];
  /** The expression translated to SQLite over the stored columns, so filters and aggregates run in SQLite. */
  readonly sql: string;
}

export interface StoredSchema {
  readonly columns: readonly ColumnSchema[];
  readonly queryHints: readonly string[];
}

const CELL = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] };

/** What a dataset version was read from: the connector, and the selection given to data connect. */
export class DatasetSourceResponse {
  @ApiProperty({ example: 'con_0mh3k2l1a09f3c2b7d4e5f6a7b' })
  connector_id!: string;
  @ApiProperty()
  connector_name!: string;
  @ApiProperty({ example: 'postgres' })
  connector_type!: string;
  @ApiPropertyOptional()
  table?: string;
  @ApiPropertyOptional()
  query?: string;
  @ApiPropertyOptional()
  pattern?: string;
  @ApiPropertyOptional({ type: 'integer' })
  max_keys?: number;
  @ApiPropertyOptional()
  path?: string;
  @ApiPropertyOptional()
  ref?: string;
  @ApiPropertyOptional()
  index?: string;
  @ApiPropertyOptional()
  label?: string;
  @ApiPropertyOptional()
  cypher?: string;
}

export class FormulaResponse {
  @ApiProperty({ example: 'margin' })
  name!: string;
  @ApiProperty({ example: 'revenue - cost' })
  expression!: string;
  @ApiProperty({ enum: FORMULA_TYPES, description: 'What the expression yields.' })
  type!: StoredFormula['type'];
}

/** A dataset version in the catalogue. */
export class DatasetResponse {
  @ApiProperty({ example: 'ds_3f9a1c0e7b2d4a6c8e0f1a2b' })
  id!: string;
  @ApiProperty({ description: 'The same as id.' })
  dataset_id!: string;
  @ApiProperty({ example: 'sales' })
  dataset_name!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Each connect under a name adds a version.' })
  version!: number;
  @ApiProperty({ enum: VISIBILITIES })
  visibility!: string;
  @ApiProperty({ description: 'Whether the caller’s organization owns it (a shared one may be another’s).' })
  owned!: boolean;
  @ApiProperty({ type: 'string', nullable: true })
  connection_id!: string | null;
  @ApiProperty({ example: 'file' })
  connection_type!: string;
  @ApiProperty({ type: DatasetSourceResponse })
  source!: DatasetSourceResponse;
  @ApiProperty({ type: 'integer' })
  rows!: number;
  @ApiProperty({ type: 'integer' })
  columns!: number;
  @ApiProperty({ type: [FormulaResponse] })
  formulas!: FormulaResponse[];
  @ApiProperty({ format: 'date-time' })
  ingested_at!: string;
  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** A dataset version as `compact=true` lists it. */
export class CompactDatasetResponse {
  @ApiProperty({ example: 'ds_3f9a1c0e7b2d4a6c8e0f1a2b' })
  id!: string;
  @ApiProperty({ example: 'sales' })
  dataset_name!: string;
  @ApiProperty({ type: 'integer', minimum: 1 })
  version!: number;
  @ApiProperty({ type: 'integer' })
  rows!: number;
  @ApiProperty({ type: 'integer' })
  columns!: number;
}

export class DatasetListResponse {
  @ApiProperty({
    type: 'array',
    items: {
      anyOf: [{ $ref: getSchemaPath(DatasetResponse) }, { $ref: getSchemaPath(CompactDatasetResponse) }],
    },
    description:
      'By name, the newest version of each (every version with `all_versions=true`); compact items with `compact=true`.',
  })
  datasets!: (DatasetResponse | CompactDatasetResponse)[];
}

export class DatasetVersionsResponse {
  @ApiProperty({ type: [DatasetResponse], description: 'Every version of the dataset’s name, newest first.' })
  datasets!: DatasetResponse[];
}

/** A column's profile, computed once at ingest. */
export class ColumnResponse {
  @ApiProperty({ example: 'revenue' })
  name!: string;
  @ApiProperty({ enum: COLUMN_TYPES })
  type!: ColumnType;
  @ApiProperty({
    enum: EXACT_NUMERICS,
    nullable: true,
    description:
      'Set on a string column whose values are numbers kept as text with their exact digits, because a double ' +
      'cannot hold some of them (integers beyond ±2^53, decimals of more than 15 significant digits): `integer` ' +
      'when all are whole, else `decimal`. Its values answer as strings ("9007199254740993"). null otherwise.',
  })
  exact_numeric!: ExactNumeric | null;
  @ApiProperty({ enum: COLUMN_ROLES })
  role!: ColumnRole;
  @ApiProperty({ type: 'integer' })
  null_count!: number;
  @ApiProperty({ type: 'integer' })
  distinct_count!: number;
  @ApiProperty({ description: 'True when distinct_count is an estimate (many distinct values).' })
  distinct_count_estimated!: boolean;
  @ApiProperty({ ...CELL, description: 'null when the column has no value.' })
  min!: ColumnValue;
  @ApiProperty({ ...CELL, description: 'null when the column has no value.' })
  max!: ColumnValue;
  @ApiProperty({ type: 'array', items: CELL, description: 'A few of its values.' })
  sample_values!: readonly ColumnValue[];
  @ApiProperty({
    description:
      'True when min, max or a sample value is longer than 1 KiB of UTF-8: it is then shown cut to its first 1 KiB, ' +
      'on a character boundary.',
  })
  values_truncated!: boolean;
}

export class DatasetSummaryResponse {
  @ApiProperty({ example: 'ds_3f9a1c0e7b2d4a6c8e0f1a2b' })
  dataset_id!: string;
  @ApiProperty({ example: 'sales' })
  dataset_name!: string;
  @ApiProperty({ type: 'integer', minimum: 1 })
  version!: number;
  @ApiProperty({ enum: VISIBILITIES })
  visibility!: string;
  @ApiProperty({ type: 'integer' })
  rows!: number;
  @ApiProperty({ type: 'integer' })
  columns!: number;
  @ApiProperty({ type: DatasetSourceResponse })
  source!: DatasetSourceResponse;
  @ApiProperty({ type: 'string', nullable: true })
  connection_id!: string | null;
  @ApiProperty({ format: 'date-time' })
  ingested_at!: string;
  @ApiProperty({ type: [String] })
  column_names!: string[];
  @ApiProperty({ type: [String], description: 'Numeric columns to aggregate.' })
  measures!: string[];
  @ApiProperty({ type: [String], description: 'Columns to group and filter by.' })
  dimensions!: string[];
  @ApiProperty({ type: [String] })
  time_columns!: string[];
  @ApiProperty({ type: [String] })
  id_columns!: string[];
  @ApiProperty({ type: [String], description: 'The names of its formula columns.' })
  formulas!: string[];
}

export class DatasetSchemaResponse {
  @ApiProperty({ example: 'ds_3f9a1c0e7b2d4a6c8e0f1a2b' })
  dataset_id!: string;
  @ApiProperty({ example: 'sales' })
  dataset_name!: string;
  @ApiProperty({ type: 'integer', minimum: 1 })
  version!: number;
  @ApiProperty({ type: 'integer' })
  rows!: number;
  @ApiProperty({ type: [ColumnResponse] })
  columns!: ColumnResponse[];
  @ApiProperty({ type: [FormulaResponse] })
  formulas!: FormulaResponse[];
  @ApiProperty({ type: [String], description: 'Example questions the natural-language query understands.' })
  query_hints!: readonly string[];
  @ApiProperty({
    type: [String],
    description: 'The dimensions whose precomputed summaries are ready (aggregates by them need no scan).',
  })
  summaries!: string[];
}

export class SchemaSummaryResponse {
  @ApiProperty({ type: 'integer' })
  rows!: number;
  @ApiProperty({ type: 'integer' })
  columns!: number;
}

/** The outcome of a data connect: a source that could not be read is an answer too (`failed`, with a message). */
export class DataConnectResponse {
  @ApiProperty({ enum: ['ready', 'failed'] })
  status!: 'ready' | 'failed';
  @ApiPropertyOptional({ description: 'When ready: the new version.' })
  dataset_id?: string;
  @ApiProperty()
  dataset_name!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'When ready.' })
  version?: number;
  @ApiPropertyOptional({ type: SchemaSummaryResponse, description: 'When ready.' })
  schema_summary?: SchemaSummaryResponse;
  @ApiProperty()
  connection_id!: string;
  @ApiPropertyOptional({ description: 'When failed: why the source could not be read.' })
  message?: string;
}

export function parseSchema(record: DatasetRecord): StoredSchema {
  return JSON.parse(record.schemaJson) as StoredSchema;
}

/**
 * The stored formulas, their SQL translated again from their expression: a version written before the DuckDB
 * dialect holds SQLite's text.
 */
export function parseFormulas(record: DatasetRecord): StoredFormula[] {
  const stored = JSON.parse(record.formulasJson) as StoredFormula[];
  if (stored.length === 0) return stored;
  const names = new Set(parseSchema(record).columns.map((c) => c.name));
  return stored.map((f) => ({ ...f, sql: formulaSql(parseExpression(f.expression, names)) }));
}

export function parseSource(record: DatasetRecord): DatasetSourceResponse {
  return JSON.parse(record.source) as DatasetSourceResponse;
}

export function toDatasetResponse(record: DatasetRecord, viewerOrgId: string): DatasetResponse {
  return {
    id: record.id,
    dataset_id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    visibility: record.visibility,
    owned: record.orgId === viewerOrgId,
    connection_id: record.connectionId,
    connection_type: record.connectionType,
    source: parseSource(record),
    rows: record.rowCount,
    columns: record.columnCount,
    formulas: parseFormulas(record).map((f) => ({ name: f.name, expression: f.expression, type: f.type })),
    ingested_at: record.ingestedAt,
    updated_at: record.updatedAt,
  };
}

export function toCompactDatasetResponse(record: DatasetRecord): CompactDatasetResponse {
  return {
    id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    rows: record.rowCount,
    columns: record.columnCount,
  };
}

export function toColumnResponse(column: ColumnSchema): ColumnResponse {
  return {
    name: column.name,
    type: column.type,
    exact_numeric: column.exactNumeric ?? null,
    role: column.role,
    null_count: column.nullCount,
    distinct_count: column.distinctCount,
    distinct_count_estimated: column.distinctEstimated,
    min: column.min,
    max: column.max,
    sample_values: column.sampleValues,
    values_truncated: column.valuesCut ?? false,
  };
}

export function toSummaryResponse(record: DatasetRecord): DatasetSummaryResponse {
  const schema = parseSchema(record);
  const byRole = (role: string): string[] => schema.columns.filter((c) => c.role === role).map((c) => c.name);
  return {
    dataset_id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    visibility: record.visibility,
    rows: record.rowCount,
    columns: record.columnCount,
    source: parseSource(record),
    connection_id: record.connectionId,
    ingested_at: record.ingestedAt,
    column_names: schema.columns.map((c) => c.name),
    measures: byRole('measure'),
    dimensions: byRole('dimension'),
    time_columns: byRole('time'),
    id_columns: byRole('id'),
    formulas: parseFormulas(record).map((f) => f.name),
  };
}

export function toSchemaResponse(record: DatasetRecord): Omit<DatasetSchemaResponse, 'summaries'> {
  const schema = parseSchema(record);
  return {
    dataset_id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    rows: record.rowCount,
    columns: schema.columns.map(toColumnResponse),
    formulas: parseFormulas(record).map((f) => ({ name: f.name, expression: f.expression, type: f.type })),
    query_hints: schema.queryHints,
  };
}
