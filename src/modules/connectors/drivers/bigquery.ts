import type { BigQuery, BigQueryOptions, Job, Query, QueryRowsResponse } from '@google-cloud/bigquery';
import { BigqueryConfig } from '../connector-config';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import {
  classifyGoogleError,
  GoogleCredentials,
  GoogleEgress,
  loadServiceAccount,
  openGoogleEgress,
} from './google-auth';
import { assertReadOnlyQuery, splitTable } from './sql-common';
import { loadOnFirstUse } from '../lazy-module';
import { defineConnector } from '../connector-descriptor';
import {
  httpUrl,
  isServiceAccountJson,
  serviceAccountProblem,
  serviceAccountText,
} from '../connector-config';
import { ConfigBoolean, ConfigJson, ConfigString, ConnectorConfig, storedFields } from '../config-fields';

const SCOPE = 'https://www.googleapis.com/auth/bigquery.readonly';
const DEFAULT_ENDPOINT = 'https://bigquery.googleapis.com';
const MAX_BROWSE_TABLES = 200;
const REQUEST_TIMEOUT_MS = 120_000;

type ApiRequest = ReturnType<BigQuery['interceptors'][number]['request']>;

/** Loading it opens no connection. */
const loadSdk = loadOnFirstUse(() => import('@google-cloud/bigquery'));

interface Session {
  readonly client: BigQuery;
  readonly project: string;
  readonly egress: GoogleEgress;
}

interface Field {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
}

async function openSession(config: BigqueryConfig, ctx: DriverContext): Promise<Session> {
  let credentials: GoogleCredentials;
  let project = config.project_id;
  if (config.service_account_json) {
    const account = await loadServiceAccount(config.service_account_json, ctx);
    credentials = { mode: 'service_account', serviceAccount: account };
    project ??= account.project_id;
  } else if (config.ambient_credentials) {
    credentials = { mode: 'ambient' };
  } else {
    throw new ConnectorError(
      'invalid_config',
      'No credentials: give service_account_json, or ambient_credentials: true.',
    );
  }
  if (!project)
    throw new ConnectorError('invalid_config', 'project_id is required (the credentials name no project).');
  const { BigQuery } = await loadSdk();
  const egress = await openGoogleEgress(credentials, ctx);
  try {
    const endpoint = (config.endpoint_url ?? DEFAULT_ENDPOINT).replace(/\/$/, '');
    const client = new BigQuery({
      ...(egress.auth as BigQueryOptions),
      projectId: project,
      apiEndpoint: endpoint,
      location: config.location,
      maxRetries: 1,
      // Read by @google-cloud/common for each request, though BigQueryOptions does not declare it.
      ...({ timeout: REQUEST_TIMEOUT_MS } as BigQueryOptions),
    });
    // BIGQUERY_EMULATOR_HOST in the environment would replace the endpoint; the config decides.
    client.baseUrl = `${endpoint}/bigquery/v2`;
    egress.bindAuth(client.authClient, SCOPE);
    client.interceptors.push({
      // The SDKs type the request as their input type; at run time it is the decorated request.
      request: (options) => egress.withProxy(options) as unknown as ApiRequest,
    });
    return { client, project, egress };
  } catch (error) {
    await egress.close();
    throw error;
  }
}

async function withSession<T>(
  config: BigqueryConfig,
  ctx: DriverContext,
  work: (s: Session) => Promise<T>,
): Promise<T> {
  const s = await openSession(config, ctx);
  try {
    return await work(s);
  } catch (error) {
    throw classifyGoogleError(error, `BigQuery project ${s.project}`, s.egress);
  } finally {
    await s.egress.close();
  }
}

/** The SDK's typed values (BigQueryDate, Big, BigQueryTimestamp...) back to the JSON scalars rows carry. */
function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value) || typeof value !== 'object') return value;
  if ('value' in value) return value.value;
  // Big (NUMERIC) serialises to its decimal string; anything else to plain JSON.
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function toRecord(row: Record<string, unknown>, fields: Field[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of fields) {
    const value = row[field.name];
    record[field.name] =
      field.mode === 'REPEATED' || field.type === 'RECORD' || field.type === 'STRUCT'
        ? value === null || value === undefined
          ? null
          : JSON.stringify(value)
        : plainValue(value);
  }
  return record;
}

/** INT64 stays exact: a number when it is safe, else its decimal string. */
const exactInteger = (text: string): number | string =>
  Number.isSafeInteger(Number(text)) ? Number(text) : text;

async function listTables(s: Session, config: BigqueryConfig): Promise<BrowseItem[]> {
  const datasets = config.dataset
    ? [s.client.dataset(config.dataset)]
    : (await s.client.getDatasets({ maxResults: 100, autoPaginate: false }))[0];
  const items: BrowseItem[] = [];
  for (const dataset of datasets) {
    const [tables] = await dataset.getTables({ maxResults: MAX_BROWSE_TABLES, autoPaginate: false });
    for (const table of tables) {
      if (items.length >= MAX_BROWSE_TABLES) return items;
      const [detail] = (await table.getMetadata()) as unknown as [
        { schema?: { fields?: Field[] }; numRows?: string; type?: string },
      ];
      items.push({
        name: table.id ?? '',
        schema: dataset.id,
        kind: detail.type === 'VIEW' ? 'view' : 'table',
        columns: (detail.schema?.fields ?? []).map((f) => ({ name: f.name, type: f.type })),
        ...(detail.numRows ? { rows: Number(detail.numRows) } : {}),
      });
    }
  }
  return items;
}

function selectionQuery(config: BigqueryConfig, selection: RowSelection): string {
  if (selection.query !== undefined && selection.query.trim() !== '') {
    const query = selection.query.trim();
    assertReadOnlyQuery(query);
    return query;
  }
  if (selection.table) {
    const { schema, table } = splitTable(selection);
    const dataset = schema ?? config.dataset;
    if (!dataset)
      throw new ConnectorError(
        'invalid_config',
        'Name the table as dataset.table (or set dataset in the config).',
      );
    return `SELECT * FROM \`${dataset.replace(/`/g, '')}.${table.replace(/`/g, '')}\``;
  }
  throw new ConnectorError('invalid_config', 'A table or a read-only query is required to read rows.');
}

export const bigqueryDriver: ConnectorDriver<BigqueryConfig> = {
  test(config, ctx) {
    return withSession(config, ctx, async (s) => {
      const [datasets] = await s.client.getDatasets({ maxResults: 50, autoPaginate: false });
      return {
        message: `Connected to BigQuery project ${s.project}: ${datasets.length} dataset(s) visible.`,
        details: { project: s.project, datasets: datasets.length },
      };
    });
  },

  browse(config, ctx): Promise<BrowseResult> {
    return withSession(config, ctx, async (s) => {
      const items = await listTables(s, config);
      return {
        items,
        total: items.length,
        message: `${items.length} table(s) and view(s) in project ${s.project}.`,
        discovery: { project: s.project },
      };
    });
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const query = selectionQuery(config, selection);
      const s = await openSession(config, ctx);
      const label = `BigQuery project ${s.project}`;
      try {
        const options = {
          maxResults: ctx.batchSize,
          autoPaginate: false,
          location: config.location,
          wrapIntegers: { integerTypeCastFunction: exactInteger },
        };
        let page = (await s.client.query({ query, useLegacySql: false }, options).catch((error: unknown) => {
          throw classifyGoogleError(error, label, s.egress);
        })) as unknown as QueryRowsResponse;
        for (;;) {
          const [records, next, response] = page as unknown as [
            Record<string, unknown>[],
            (Query & { job?: Job }) | null | undefined,
            { schema?: { fields?: Field[] } } | undefined,
          ];
          const fields = response?.schema?.fields ?? [];
          if (records.length > 0) yield records.map((row) => toRecord(row, fields));
          if (!next?.job) return;
          page = await next.job.getQueryResults({ ...next, ...options }).catch((error: unknown) => {
            throw classifyGoogleError(error, label, s.egress);
          });
        }
      } finally {
        await s.egress.close();
      }
    }
    return limitBatches(rows(), selection.limit);
  },
};

export class BigqueryConnectorConfig extends ConnectorConfig<BigqueryConfig> {
  @ConfigString()
  project_id?: string;

  @ConfigJson({
    aliases: ['credentials'],
    secret: true,
    checks: [
      serviceAccountProblem,
      (value) =>
        value === undefined || isServiceAccountJson(serviceAccountText(value) as string)
          ? undefined
          : 'must be a service-account JSON (with client_email and private_key)',
    ],
    read: serviceAccountText,
    schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'string' }] },
    description: 'A service-account key, as a JSON object or its text; kept as text.',
  })
  service_account_json?: string;

  @ConfigBoolean({ default: false, description: "Use the appliance host's own Google credentials." })
  ambient_credentials?: boolean;

  @ConfigString()
  location?: string;

  @ConfigString()
  dataset?: string;

  @ConfigString({
    checks: [httpUrl],
    description: 'A private endpoint or test stand-in instead of https://bigquery.googleapis.com.',
  })
  endpoint_url?: string;

  toConfig(): BigqueryConfig {
    return storedFields<BigqueryConfig>(this);
  }
}

export const bigqueryConnector = defineConnector({
  name: 'bigquery',
  family: 'sql',
  config: BigqueryConnectorConfig,
  destinationFields: ['endpoint_url'],
  driver: bigqueryDriver,
});
