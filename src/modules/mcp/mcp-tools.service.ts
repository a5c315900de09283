import { Inject, Injectable, Type } from '@nestjs/common';
import { z } from 'zod';
import { authorize } from '../../common/auth/authorization';
import { ENTITLEMENT_SOURCE, EntitlementSource } from '../../common/auth/entitlements';
import { createValidationPipe } from '../../common/http';
import { Principal } from '../../common/auth/principal';
import { toConnectorResponse, CreateConnectorRequest } from '../connectors/connectors.dto';
import { ConnectorsService } from '../connectors/connectors.service';
import { ContractDocument } from '../contract/contract-document.service';
import { DatasetsService } from '../datasets/datasets.service';
import { QueryService } from '../query/query.service';
import { toExecutionResponse, toListingResponse } from '../runtime-library/runtime-library.dto';
import { RuntimeLibraryService } from '../runtime-library/runtime-library.service';
import { McpTool } from './mcp-tool';

const datasetId = z.string().min(1).max(128).describe('Dataset id, as returned by list_data.');
const condition = z.looseObject({
  column: z.string(),
  op: z.string().describe('eq, ne, lt, lte, gt, gte, in, contains, starts_with, is_null, not_null'),
  value: z.unknown().optional(),
});
const queryShape = {
  dataset_id: datasetId,
  query: z
    .string()
    .max(2000)
    .optional()
    .describe('Natural-language intent; alternative to the typed fields.'),
  select: z.array(z.string()).optional().describe('Column names to return.'),
  where: z.array(condition).optional(),
  group_by: z.array(z.string()).optional(),
  aggregates: z.array(z.looseObject({ function: z.string(), column: z.string().optional() })).optional(),
  order_by: z.array(z.looseObject({ column: z.string(), direction: z.string().optional() })).optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
  offset: z.number().int().min(0).optional(),
};
const anyObject = z.looseObject({});
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The tool catalogue; which tools a caller sees is decided by `visibleTools`. */
@Injectable()
export class McpToolsService {
  private readonly pipe = createValidationPipe();
  readonly tools: readonly McpTool[];

  constructor(
    private readonly datasets: DatasetsService,
    private readonly queries: QueryService,
    private readonly connectors: ConnectorsService,
    private readonly runtime: RuntimeLibraryService,
    private readonly contract: ContractDocument,
    @Inject(ENTITLEMENT_SOURCE) private readonly entitlements: EntitlementSource,
  ) {
    this.tools = this.catalogue();
  }

  visibleTools(): McpTool[] {
    return this.tools.filter(
      (t) => t.visibleWith === undefined || this.entitlements.hasEntitlement(t.visibleWith),
    );
  }

  find(name: string): McpTool | undefined {
    return this.visibleTools().find((t) => t.name === name);
  }

  /** A call's `requires`, checked by the same functions as the route guards (after input validation, before run). */
  checkRequirements(principal: Principal, tool: McpTool): void {
    authorize(principal, tool.requires ?? {}, this.entitlements);
  }

  /** The HTTP route's DTO validation, run on the tool's arguments, so both surfaces refuse the same input. */
  private async validated<T extends object>(dto: Type<T>, value: unknown): Promise<T> {
    return (await this.pipe.transform(value, { type: 'body', metatype: dto, data: '' })) as T;
  }

  private catalogue(): McpTool[] {
    return [
      {
        name: 'get_contract',
        description:
          'The machine-readable contract: the OpenAPI 3.1 document of every HTTP route, as GET /v1/openapi.json serves it.',
        endpoint: 'GET /v1/openapi.json',
        input: z.object({}),
        output: z.looseObject({ openapi: z.string(), info: anyObject, paths: anyObject }),
        annotations: { title: 'Get the API contract', ...readOnly },
        run: () => Promise.resolve(this.contract.document()),
      },
      {
        name: 'list_data',
        description:
          'List the datasets you can query. `search` filters by dataset name and column names; `compact` ' +
          'returns only ids, names and row counts.',
        endpoint: 'GET /v1/data',
        requires: { entitlements: ['datasets'] },
        input: z.object({
          search: z.string().max(200).optional().describe('Words matched against dataset names and columns.'),
          compact: z.boolean().optional().describe('Only id, name and row count per dataset.'),
        }),
        output: z.looseObject({ datasets: z.array(anyObject) }),
        annotations: { title: 'List datasets', ...readOnly },
        run: async (principal, args) => {
          const search =
            typeof args.search === 'string' && args.search.trim() !== '' ? args.search : undefined;
          return {
            datasets: await this.datasets.list(principal, { search, compact: args.compact === true }),
          };
        },
      },
      {
        name: 'get_data_summary',
        description: 'Row and column counts and per-column statistics of one dataset.',
        endpoint: 'GET /v1/data/{id}/summary',
        requires: { entitlements: ['datasets'] },
        input: z.object({ dataset_id: datasetId }),
        output: anyObject,
        annotations: { title: 'Summarize a dataset', ...readOnly },
        run: async (principal, args) => {
          return this.datasets.summary(principal, String(args.dataset_id));
        },
      },
      {
        name: 'get_data_schema',
        description: 'Columns of one dataset with their types, roles, formulas and query hints.',
        endpoint: 'GET /v1/data/{id}/schema',
        requires: { entitlements: ['datasets'] },
        input: z.object({ dataset_id: datasetId }),
        output: anyObject,
        annotations: { title: 'Describe a dataset', ...readOnly },
        run: async (principal, args) => {
          return this.datasets.schema(principal, String(args.dataset_id));
        },
      },
      {
        name: 'query_data',
        description:
          'Query one dataset: either typed (select, where, group_by, aggregates, order_by, limit, offset) ' +
          'or a natural-language `query`. Returns the rows and the resolved plan.',
        endpoint: 'POST /v1/query',
        requires: { entitlements: ['datasets'] },
        input: z.object(queryShape),
        output: z.looseObject({ rows: z.array(z.unknown()) }),
        annotations: { title: 'Query a dataset', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.queries.query(principal, args)) };
        },
      },
      {
        name: 'query_batch',
        description:
          'Run several queries (each as for query_data) in one call; one result or error per query, in order.',
        endpoint: 'POST /v1/query/batch',
        visibleWith: 'mcp',
        requires: { entitlements: ['datasets'] },
        input: z.object({ queries: z.array(z.looseObject(queryShape)).min(1).max(100) }),
        output: z.looseObject({ results: z.array(z.unknown()) }),
        annotations: { title: 'Query in batch', ...readOnly },
        run: async (principal, args) => {
          return this.queries.batch(principal, args);
        },
      },
      {
        name: 'query_sql_report',
        description:
          'One read-only SQL SELECT over your datasets; each dataset is a table named after its dataset_name.',
        endpoint: 'POST /v1/query/sql',
        visibleWith: 'mcp',
        requires: { entitlements: ['datasets', 'sql_reports'] },
        input: z.object({ dataset_id: datasetId, sql: z.string().min(1).max(100_000) }),
        output: anyObject,
        annotations: { title: 'Read-only SQL report', ...readOnly },
        run: async (principal, args) => {
          return this.queries.sqlReport(principal, args);
        },
      },
      {
        name: 'create_connector',
        description:
          'Create a connector (file, rest, postgres, mysql, s3, ...). It starts `untested`; secrets in ' +
          '`config` are stored encrypted and never returned.',
        endpoint: 'POST /v1/connectors',
        visibleWith: 'mcp',
        requires: { entitlements: ['connectors'], role: 'member' },
        input: z.object({
          name: z.string().min(1).max(200),
          connector_type: z.string().describe('Connector type or alias, e.g. file, csv, rest, postgres.'),
          config: z.record(z.string(), z.unknown()).optional(),
        }),
        output: z.looseObject({ id: z.string(), connector_type: z.string(), status: z.string() }),
        annotations: {
          title: 'Create a connector',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        run: async (principal, args) => {
          const body = await this.validated(CreateConnectorRequest, args);
          return toConnectorResponse(
            await this.connectors.create(principal.orgId, body.name, body.connector_type, body.config ?? {}),
          );
        },
      },
      {
        name: 'list_runtime_libraries',
        description:
          'Modules and functions of the local runtime library. `search` filters module and function names.',
        endpoint: 'runtime socket: manifest + health',
        visibleWith: 'runtime_library',
        input: z.object({
          search: z.string().max(200).optional(),
          limit: z
            .number()
            .int()
            .min(1)
            .max(1000)
            .optional()
            .describe('Most libraries to return after filtering.'),
        }),
        output: z.looseObject({
          runtime_health: z.looseObject({ status: z.string() }),
          module_count: z.number(),
          libraries: z.array(
            z.looseObject({ name: z.string(), engine: z.string(), functions: z.array(z.string()) }),
          ),
        }),
        annotations: { title: 'List runtime libraries', ...readOnly },
        run: async (_principal, args) =>
          toListingResponse(
            await this.runtime.listLibraries(
              typeof args.search === 'string' ? args.search : undefined,
              typeof args.limit === 'number' ? args.limit : undefined,
            ),
          ),
      },
      {
        name: 'execute_runtime_library',
        description:
          'Execute one runtime-library function, e.g. finance.npv with args {rate, cashflows}. `args` is ' +
          'an object of named arguments, an array of positional ones, a scalar or null.',
        endpoint: 'runtime socket: execute',
        visibleWith: 'runtime_library',
        input: z.object({
          module: z.string().min(1).max(100),
          function: z.string().min(1).max(100),
          args: z.unknown().optional(),
          request_id: z.string().max(200).optional(),
        }),
        output: z.looseObject({
          module: z.string(),
          function: z.string(),
          args: z.unknown(),
          result: z.unknown(),
          latency_ms: z.number(),
          engine_used: z.string(),
          success: z.boolean(),
        }),
        annotations: { title: 'Execute a runtime function', ...readOnly },
        run: async (_principal, args) => {
          const call = {
            module: String(args.module),
            function: String(args.function),
            args: args.args ?? null,
          };
          const requestId = typeof args.request_id === 'string' ? args.request_id : undefined;
          return toExecutionResponse(
            call,
            await this.runtime.execute(call.module, call.function, call.args, requestId),
          );
        },
      },
    ];
  }
}
