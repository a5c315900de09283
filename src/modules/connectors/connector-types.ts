import { AppError } from '../../common/errors';

/** Canonical connector types of the spec, in the order `GET /v1/connectors/types` lists them. */
export const CONNECTOR_TYPES = [
  'postgres',
  'mysql',
  'mssql',
  'sqlite',
  'clickhouse',
  'redshift',
  'snowflake',
  'bigquery',
  's3',
  'gcs',
  'azure',
  'rest',
  'file',
  'neo4j',
  'redis',
  'elasticsearch',
  'github_repo',
  'gitlab_repo',
  'bitbucket_repo',
  'local_repo',
  'repo_archive',
] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

export const FILE_TYPES = ['csv', 'tsv', 'json', 'excel', 'parquet'] as const;
export type FileType = (typeof FILE_TYPES)[number];

/** Types accepted and stored, whose test is a configuration check only (no driver yet); said so in the result. */
export const CONFIG_CHECK_ONLY_TYPES: ReadonlySet<ConnectorType> = new Set<ConnectorType>([
  'neo4j',
  'redis',
  'elasticsearch',
  'github_repo',
  'gitlab_repo',
  'bitbucket_repo',
  'local_repo',
  'repo_archive',
]);

export const SQL_TYPES: ReadonlySet<ConnectorType> = new Set<ConnectorType>([
  'postgres',
  'mysql',
  'mssql',
  'sqlite',
  'clickhouse',
  'redshift',
  'snowflake',
  'bigquery',
]);

export const OBJECT_STORE_TYPES: ReadonlySet<ConnectorType> = new Set<ConnectorType>(['s3', 'gcs', 'azure']);

interface Alias {
  readonly type: ConnectorType;
  readonly fileType?: FileType;
}

const ALIASES: Readonly<Record<string, Alias>> = {
  postgresql: { type: 'postgres' },
  rest_api: { type: 'rest' },
  file_upload: { type: 'file' },
  elastic: { type: 'elasticsearch' },
  csv: { type: 'file', fileType: 'csv' },
  tsv: { type: 'file', fileType: 'tsv' },
  json: { type: 'file', fileType: 'json' },
  excel: { type: 'file', fileType: 'excel' },
  xlsx: { type: 'file', fileType: 'excel' },
  xls: { type: 'file', fileType: 'excel' },
  parquet: { type: 'file', fileType: 'parquet' },
};

/** Every name `connector_type` accepts: canonical types, then aliases (the `types` listing; includes file_upload). */
export const ACCEPTED_TYPE_NAMES: readonly string[] = [...CONNECTOR_TYPES, ...Object.keys(ALIASES)];

/** The provider stored beside a type where the spec names one. */
const PROVIDERS: Partial<Record<ConnectorType, string>> = { azure: 'azure_blob' };

export interface ResolvedType {
  readonly type: ConnectorType;
  /** Set when the name was a file-format alias (csv, xlsx, ...): the config's `file_type` defaults to it. */
  readonly fileType?: FileType;
  readonly provider?: string;
}

/** Normalises a requested type name (case, hyphens → underscores, aliases); 422 invalid_type listing the valid set. */
export function resolveConnectorType(requested: unknown): ResolvedType {
  const name = typeof requested === 'string' ? requested.trim().toLowerCase().replace(/-/g, '_') : '';
  const alias = ALIASES[name];
  const type = alias?.type ?? (CONNECTOR_TYPES as readonly string[]).find((t) => t === name);
  if (type === undefined) {
    const shown = typeof requested === 'string' ? `"${requested}"` : 'missing';
    throw new AppError(
      'invalid_type',
      `Unknown connector_type ${shown}. Valid types: ${ACCEPTED_TYPE_NAMES.join(', ')}.`,
      [{ field: 'connector_type', problem: `must be one of ${ACCEPTED_TYPE_NAMES.join(', ')}` }],
    );
  }
  const resolved = type;
  return { type: resolved, fileType: alias?.fileType, provider: PROVIDERS[resolved] };
}

export function isConnectorType(value: string): value is ConnectorType {
  return (CONNECTOR_TYPES as readonly string[]).includes(value);
}
