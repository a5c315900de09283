import { randomUUID } from 'node:crypto';
import type { BigQuery, BigQueryOptions } from '@google-cloud/bigquery';
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
import { BIGQUERY_FORMAT_OPTIONS, BigqueryField, bigqueryRecord, BigqueryWireRow } from './bigquery-cells';
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
/** How long the API holds a results request open while the query runs. */
const POLL_TIMEOUT_MS = 10_000;

type ApiRequest = ReturnType<BigQuery['interceptors'][number]['request']>;

/** Loading it opens no connection. */
const loadSdk = loadOnFirstUse(() => import('@google-cloud/bigquery'));

interface Session {
  readonly client: BigQuery;
  readonly project: string;
  readonly egress: GoogleEgress;
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

/** A results page as the REST API sends it; the client library's own row parsing would shift or drop values. */
interface QueryPage {
  readonly jobComplete?: boolean;
  readonly jobReference?: { readonly jobId?: string; readonly location?: string };
  readonly schema?: { readonly fields?: BigqueryField[] };
  readonly rows?: BigqueryWireRow[];
  readonly pageToken?: string;
}

/** One API request through the client's authenticated, egress-guarded transport. */
function apiCall<T>(s: Session, label: string, request: Parameters<BigQuery['request']>[0]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    s.client.request(request, (error, body) => {
      if (error) reject(classifyGoogleError(error, label, s.egress));
      else resolve(body as T);
    });
  });
}

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
        { schema?: { fields?: BigqueryField[] }; numRows?: string; type?: string },
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
        let page = await apiCall<QueryPage>(s, label, {
          method: 'POST',
          uri: '/queries',
          json: {
            query,
            useLegacySql: false,
            maxResults: ctx.batchSize,
            location: config.location,
            timeoutMs: POLL_TIMEOUT_MS,
            formatOptions: BIGQUERY_FORMAT_OPTIONS,
            requestId: randomUUID(),
          },
        });
        let fields: readonly BigqueryField[] = [];
        for (;;) {
          fields = page.schema?.fields ?? fields;
          const complete = page.jobComplete !== false;
          if (complete && page.rows?.length) yield page.rows.map((row) => bigqueryRecord(row, fields));
          if (complete && !page.pageToken) return;
          const job = page.jobReference;
          if (!job?.jobId)
            throw new ConnectorError('remote_error', `${label} answered without a job to read.`);
          page = await apiCall<QueryPage>(s, label, {
            uri: `/queries/${encodeURIComponent(job.jobId)}`,
            qs: {
              location: job.location ?? config.location,
              maxResults: ctx.batchSize,
              timeoutMs: POLL_TIMEOUT_MS,
              'formatOptions.useInt64Timestamp': BIGQUERY_FORMAT_OPTIONS.useInt64Timestamp,
              ...(complete ? { pageToken: page.pageToken } : {}),
            },
          });
          page = { ...page, jobReference: page.jobReference ?? job };
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
