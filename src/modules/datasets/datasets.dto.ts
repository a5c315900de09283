import { Type } from 'class-transformer';
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
import { ColumnSchema } from './column-profile';
import { DatasetRecord } from './dataset.entity';

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
  @ValidateNested({ each: true })
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

/** A formula column as stored: its definition and the type its expression yields. */
export interface StoredFormula {
  readonly name: string;
  readonly expression: string;
  readonly type: 'number' | 'boolean';
  /** The expression translated to SQLite over the stored columns, so filters and aggregates run in SQLite. */
  readonly sql: string;
}

export interface StoredSchema {
  readonly columns: readonly ColumnSchema[];
  readonly queryHints: readonly string[];
}

export function parseSchema(record: DatasetRecord): StoredSchema {
  return JSON.parse(record.schemaJson) as StoredSchema;
}

export function parseFormulas(record: DatasetRecord): StoredFormula[] {
  return JSON.parse(record.formulasJson) as StoredFormula[];
}

export function parseSource(record: DatasetRecord): Record<string, unknown> {
  return JSON.parse(record.source) as Record<string, unknown>;
}

export function toDatasetResponse(record: DatasetRecord, viewerOrgId: string): Record<string, unknown> {
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

export function toCompactDatasetResponse(record: DatasetRecord): Record<string, unknown> {
  return {
    id: record.id,
    dataset_name: record.datasetName,
    version: record.version,
    rows: record.rowCount,
    columns: record.columnCount,
  };
}

export function toColumnResponse(column: ColumnSchema): Record<string, unknown> {
  return {
    name: column.name,
    type: column.type,
    role: column.role,
    null_count: column.nullCount,
    distinct_count: column.distinctCount,
    distinct_count_estimated: column.distinctEstimated,
    min: column.min,
    max: column.max,
    sample_values: column.sampleValues,
  };
}

export function toSummaryResponse(record: DatasetRecord): Record<string, unknown> {
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

export function toSchemaResponse(record: DatasetRecord): Record<string, unknown> {
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
