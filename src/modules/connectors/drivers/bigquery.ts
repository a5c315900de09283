import { BigqueryConfig } from '../connector-config';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitRows,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { accessToken, GoogleCredentials, googleFetch, loadServiceAccount } from './google-auth';
import { assertReadOnlyQuery, splitTable } from './sql-common';

const SCOPE = 'https://www.googleapis.com/auth/bigquery.readonly';
const DEFAULT_ENDPOINT = 'https://bigquery.googleapis.com';
const MAX_BROWSE_TABLES = 200;

interface Session {
  readonly api: string;
  readonly project: string;
  readonly token: string | undefined;
}

interface Field {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
}

interface QueryPage {
  jobComplete?: boolean;
  jobReference?: { jobId: string; location?: string };
  schema?: { fields: Field[] };
  rows?: { f: { v: unknown }[] }[];
  pageToken?: string;
}

async function session(config: BigqueryConfig, ctx: DriverContext): Promise<Session> {
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
  const api = `${(config.endpoint_url ?? DEFAULT_ENDPOINT).replace(/\/$/, '')}/bigquery/v2/projects/${encodeURIComponent(project)}`;
  return { api, project, token: await accessToken(credentials, SCOPE, ctx) };
}

async function getJson<T>(ctx: DriverContext, s: Session, path: string, init?: RequestInit): Promise<T> {
  return (await (await googleFetch(ctx, `${s.api}${path}`, s.token, init)).json()) as T;
}

/** BigQuery's JSON rows carry every scalar as a string: INT64 stays exact, numbers and booleans are typed. */
export function bigqueryCell(value: unknown, field: Field): unknown {
  if (value === null || value === undefined) return null;
  if (field.mode === 'REPEATED' || field.type === 'RECORD' || field.type === 'STRUCT')
    return JSON.stringify(value);
  if (typeof value !== 'string') return value;
  switch (field.type) {
    case 'INTEGER':
    case 'INT64': {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : value;
    }
    case 'FLOAT':
    case 'FLOAT64':
      return Number(value);
    case 'BOOLEAN':
    case 'BOOL':
      return value === 'true';
    default:
      return value;
  }
}

function toRecords(page: QueryPage, fields: Field[]): Record<string, unknown>[] {
  return (page.rows ?? []).map((row) => {
    const record: Record<string, unknown> = {};
    fields.forEach((field, i) => (record[field.name] = bigqueryCell(row.f[i]?.v, field)));
    return record;
  });
}

async function listTables(ctx: DriverContext, s: Session, config: BigqueryConfig): Promise<BrowseItem[]> {
  const datasets = config.dataset
    ? [config.dataset]
    : (
        (
          await getJson<{ datasets?: { datasetReference: { datasetId: string } }[] }>(
            ctx,
            s,
            '/datasets?maxResults=100',
          )
        ).datasets ?? []
      ).map((d) => d.datasetReference.datasetId);
  const items: BrowseItem[] = [];
  for (const dataset of datasets) {
    const listed = await getJson<{ tables?: { tableReference: { tableId: string }; type?: string }[] }>(
      ctx,
      s,
      `/datasets/${encodeURIComponent(dataset)}/tables?maxResults=${MAX_BROWSE_TABLES}`,
    );
    for (const table of listed.tables ?? []) {
      if (items.length >= MAX_BROWSE_TABLES) return items;
      const detail = await getJson<{ schema?: { fields: Field[] }; numRows?: string }>(
        ctx,
        s,
        `/datasets/${encodeURIComponent(dataset)}/tables/${encodeURIComponent(table.tableReference.tableId)}`,
      );
      items.push({
        name: table.tableReference.tableId,
        schema: dataset,
        kind: table.type === 'VIEW' ? 'view' : 'table',
        columns: (detail.schema?.fields ?? []).map((f) => ({ name: f.name, type: f.type })),
        ...(detail.numRows ? { rows: Number(detail.numRows) } : {}),
      });
    }
  }
  return items;
}

/** BigQuery through its REST API (jobs.query + getQueryResults paging), every request through the egress guard. */
export const bigqueryDriver: ConnectorDriver<BigqueryConfig> = {
  async test(config, ctx) {
    const s = await session(config, ctx);
    const listed = await getJson<{ datasets?: unknown[] }>(ctx, s, '/datasets?maxResults=50');
    return {
      message: `Connected to BigQuery project ${s.project}: ${listed.datasets?.length ?? 0} dataset(s) visible.`,
      details: { project: s.project, datasets: listed.datasets?.length ?? 0 },
    };
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const s = await session(config, ctx);
    const items = await listTables(ctx, s, config);
    return {
      items,
      total: items.length,
      message: `${items.length} table(s) and view(s) in project ${s.project}.`,
      discovery: { project: s.project },
    };
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      let query: string;
      if (selection.query !== undefined && selection.query.trim() !== '') {
        query = selection.query.trim();
        assertReadOnlyQuery(query);
      } else if (selection.table) {
        const { schema, table } = splitTable(selection);
        const dataset = schema ?? config.dataset;
        if (!dataset)
          throw new ConnectorError(
            'invalid_config',
            'Name the table as dataset.table (or set dataset in the config).',
          );
        query = `SELECT * FROM \`${dataset.replace(/`/g, '')}.${table.replace(/`/g, '')}\``;
      } else {
        throw new ConnectorError('invalid_config', 'A table or a read-only query is required to read rows.');
      }
      const s = await session(config, ctx);
      let page = await getJson<QueryPage>(ctx, s, '/queries', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query,
          useLegacySql: false,
          maxResults: ctx.batchSize,
          timeoutMs: 60_000,
          location: config.location,
        }),
      });
      const job = page.jobReference;
      const location = job?.location ?? config.location;
      const results = (token?: string): string =>
        `/queries/${encodeURIComponent(job?.jobId ?? '')}?maxResults=${ctx.batchSize}&timeoutMs=60000${location ? `&location=${encodeURIComponent(location)}` : ''}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      while (!page.jobComplete) page = await getJson<QueryPage>(ctx, s, results());
      const fields = page.schema?.fields ?? [];
      for (;;) {
        const batch = toRecords(page, fields);
        if (batch.length > 0) yield batch;
        if (!page.pageToken) return;
        page = await getJson<QueryPage>(ctx, s, results(page.pageToken));
      }
    }
    return limitRows(rows(), selection.limit);
  },
};
