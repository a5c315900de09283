import { Inject, Injectable } from '@nestjs/common';
import { authorize } from '../../common/auth/authorization';
import { Entitlement, ENTITLEMENT_SOURCE, EntitlementSource } from '../../common/auth/entitlements';
import { Principal } from '../../common/auth/principal';
import { toConnectorResponse, CreateConnectorRequest } from '../connectors/connectors.dto';
import { ConnectorsService } from '../connectors/connectors.service';
import { ContractDocument } from '../contract/contract-document.service';
import { DatasetsService } from '../datasets/datasets.service';
import { QueryBatchRequest, QueryRequest, SqlReportRequest } from '../query/query.dto';
import { QueryService } from '../query/query.service';
import { DataFitService } from '../query/data-fit.service';
import {
  RuntimeExecutionResponse,
  RuntimeLibraryListingResponse,
  toExecutionResponse,
  toListingResponse,
} from '../runtime-library/runtime-library.dto';
import { RuntimeLibraryService } from '../runtime-library/runtime-library.service';
import {
  CreateTriggerDto,
  toFireResponse,
  toOutcomeResponse,
  toTriggerResponse,
} from '../triggers/triggers.dto';
import { TriggersService } from '../triggers/triggers.service';
import { defineTool, McpTool } from './mcp-tool';
import {
  DatasetArguments,
  ExecuteLibraryArguments,
  FitDistributionArguments,
  FireTriggerArguments,
  ListTriggersArguments,
  ReportOutcomeArguments,
  ListDataArguments,
  ListLibrariesArguments,
  NoToolArguments,
} from './mcp-tool-arguments.dto';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

@Injectable()
export class McpToolsService {
  readonly tools: readonly McpTool[];

  constructor(
    private readonly datasets: DatasetsService,
    private readonly queries: QueryService,
    private readonly fits: DataFitService,
    private readonly connectors: ConnectorsService,
    private readonly runtime: RuntimeLibraryService,
    private readonly contract: ContractDocument,
    private readonly triggers: TriggersService,
    @Inject(ENTITLEMENT_SOURCE) private readonly entitlements: EntitlementSource,
  ) {
    this.tools = this.catalogue();
  }

  visibleTools(): McpTool[] {
    return this.tools.filter(
      (t) =>
        t.visibleWith === undefined ||
        [t.visibleWith]
          .flat()
          .every((entitlement: Entitlement) => this.entitlements.hasEntitlement(entitlement)),
    );
  }

  find(name: string): McpTool | undefined {
    return this.visibleTools().find((t) => t.name === name);
  }

  /** A call's `requires`, checked by the same functions as the route guards (after input validation, before run). */
  checkRequirements(principal: Principal, tool: McpTool): void {
    authorize(principal, tool.requires ?? {}, this.entitlements);
  }

  private catalogue(): McpTool[] {
    return [
      defineTool({
        name: 'get_contract',
        description:
          'The machine-readable contract: the OpenAPI 3.1 document of every HTTP route, as GET /v1/openapi.json serves it.',
        endpoint: 'GET /v1/openapi.json',
        input: NoToolArguments,
        annotations: { title: 'Get the API contract', ...readOnly },
        run: () => Promise.resolve(this.contract.document()),
      }),
      defineTool({
        name: 'list_data',
        description:
          'List the datasets you can query. `search` filters by dataset name and column names; `compact` ' +
          'returns only ids, names and row counts.',
        endpoint: 'GET /v1/data',
        requires: { entitlements: ['datasets'] },
        input: ListDataArguments,
        annotations: { title: 'List datasets', ...readOnly },
        run: async (principal, args) => {
          const search = args.search?.trim() ? args.search : undefined;
          return {
            datasets: await this.datasets.list(principal, { search, compact: args.compact === true }),
          };
        },
      }),
      defineTool({
        name: 'get_data_summary',
        description: 'Row and column counts and per-column statistics of one dataset.',
        endpoint: 'GET /v1/data/{id}/summary',
        requires: { entitlements: ['datasets'] },
        input: DatasetArguments,
        annotations: { title: 'Summarize a dataset', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.datasets.summary(principal, args.dataset_id)) };
        },
      }),
      defineTool({
        name: 'get_data_schema',
        description: 'Columns of one dataset with their types, roles, formulas and query hints.',
        endpoint: 'GET /v1/data/{id}/schema',
        requires: { entitlements: ['datasets'] },
        input: DatasetArguments,
        annotations: { title: 'Describe a dataset', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.datasets.schema(principal, args.dataset_id)) };
        },
      }),
      defineTool({
        name: 'query_data',
        description:
          'Query one dataset: either typed (select, where, group_by, aggregates, order_by, limit, offset) ' +
          'or a natural-language `query`. Returns the rows and the resolved plan.',
        endpoint: 'POST /v1/query',
        requires: { entitlements: ['datasets'] },
        input: QueryRequest,
        annotations: { title: 'Query a dataset', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.queries.query(principal, args)) };
        },
      }),
      defineTool({
        name: 'fit_distribution',
        description:
          'Fit distributions (normal, lognormal, gamma, weibull, exponential, uniform, triangular, pert) to a ' +
          "numeric column of a dataset by maximum likelihood, optionally under the typed query's `where`; " +
          'answers every candidate with its parameters, AIC and KS statistic, lowest AIC first, and the best. ' +
          'Use the result in a simulation as {"from": {dataset_id, column, where}, "distribution": "fit"}.',
        endpoint: 'POST /v1/data/{id}/fit',
        requires: { entitlements: ['datasets'] },
        input: FitDistributionArguments,
        annotations: { title: 'Fit distributions to a column', ...readOnly },
        run: async (principal, args) => {
          const { dataset_id: datasetId, ...request } = args;
          return { ...(await this.fits.fit(principal.orgId, datasetId, request)) };
        },
      }),
      defineTool({
        name: 'query_batch',
        description:
          'Run several queries (each as for query_data) in one call; one result or error per query, in order.',
        endpoint: 'POST /v1/query/batch',
        visibleWith: 'mcp',
        requires: { entitlements: ['datasets'] },
        input: QueryBatchRequest,
        annotations: { title: 'Query in batch', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.queries.batch(principal, args)) };
        },
      }),
      defineTool({
        name: 'query_sql_report',
        description:
          'One read-only SQL SELECT over your datasets; each dataset is a table named after its dataset_name.',
        endpoint: 'POST /v1/query/sql',
        visibleWith: 'mcp',
        requires: { entitlements: ['datasets', 'sql_reports'] },
        input: SqlReportRequest,
        annotations: { title: 'Read-only SQL report', ...readOnly },
        run: async (principal, args) => {
          return { ...(await this.queries.sqlReport(principal, args)) };
        },
      }),
      defineTool({
        name: 'create_connector',
        description:
          'Create a connector (file, rest, postgres, mysql, s3, ...). It starts `untested`; secrets in ' +
          '`config` are stored encrypted and never returned.',
        endpoint: 'POST /v1/connectors',
        visibleWith: 'mcp',
        requires: { entitlements: ['connectors'], role: 'member' },
        input: CreateConnectorRequest,
        annotations: {
          title: 'Create a connector',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        run: async (principal, args) => {
          return {
            ...toConnectorResponse(
              await this.connectors.create(
                principal.orgId,
                args.name,
                args.connector_type,
                args.config ?? {},
              ),
            ),
          };
        },
      }),
      defineTool({
        name: 'list_triggers',
        description:
          'List the triggers of your organization (conditions that fire simulations) with their state ' +
          '(inactive, pending, firing, recovering, no_data, error, disabled), oldest first; page with `cursor`.',
        endpoint: 'GET /v1/triggers',
        visibleWith: ['mcp', 'triggers'],
        requires: { entitlements: ['triggers'] },
        input: ListTriggersArguments,
        annotations: { title: 'List triggers', ...readOnly },
        run: async (principal, args) => {
          const page = await this.triggers.list(principal.orgId, args.limit ?? 50, args.cursor);
          return { triggers: page.triggers.map(toTriggerResponse), next_cursor: page.nextCursor };
        },
      }),
      defineTool({
        name: 'create_trigger',
        description:
          'Create a trigger: a condition on a value (a dataset query, or pushed on fire) compared with a ' +
          'threshold, a simulation (a POST /v1/simulate body) run when it holds, a schedule (interval_s ≥ 10) ' +
          'and optional webhooks that receive trigger.fired.',
        endpoint: 'POST /v1/triggers',
        visibleWith: ['mcp', 'triggers'],
        requires: { entitlements: ['triggers'], role: 'member' },
        input: CreateTriggerDto,
        annotations: {
          title: 'Create a trigger',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        run: async (principal, args) => {
          return { ...toTriggerResponse(await this.triggers.create(principal.orgId, args)) };
        },
      }),
      defineTool({
        name: 'fire_trigger',
        description:
          'Fire a trigger now: read its value (or take `current_value`), and when the condition holds run its ' +
          'simulation and send trigger.fired. Answers the fire: condition_met, recommended_action, ' +
          'expected_value, confidence, execution_status.',
        endpoint: 'POST /v1/triggers/{id}/fire',
        visibleWith: ['mcp', 'triggers'],
        requires: { entitlements: ['triggers'], role: 'member' },
        input: FireTriggerArguments,
        annotations: {
          title: 'Fire a trigger',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: true,
        },
        run: async (principal, args) => {
          return {
            ...toFireResponse(await this.triggers.fire(principal.orgId, args.trigger_id, args.current_value)),
          };
        },
      }),
      defineTool({
        name: 'report_trigger_outcome',
        description:
          'Report what happened after a fire: `realized_value` and optionally `realized_variables`, once per ' +
          'fire. Answers whether it fell inside the predicted 90 % band and, with the variables, which action ' +
          'was best; outcomes calibrate the trigger.',
        endpoint: 'POST /v1/triggers/{id}/fires/{fireId}/outcome',
        visibleWith: ['mcp', 'triggers'],
        requires: { entitlements: ['triggers'], role: 'member' },
        input: ReportOutcomeArguments,
        annotations: {
          title: 'Report a fire outcome',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        run: async (principal, args) => {
          const { trigger_id: triggerId, fire_id: fireId, ...body } = args;
          return {
            ...toOutcomeResponse(await this.triggers.reportOutcome(principal, triggerId, fireId, body)),
          };
        },
      }),
      defineTool({
        name: 'list_runtime_libraries',
        description:
          'Modules and functions of the local runtime library. `search` filters module and function names.',
        endpoint: 'runtime socket: manifest + health',
        answers: RuntimeLibraryListingResponse,
        visibleWith: 'runtime_library',
        input: ListLibrariesArguments,
        annotations: { title: 'List runtime libraries', ...readOnly },
        run: async (_principal, args) => ({
          ...toListingResponse(await this.runtime.listLibraries(args.search, args.limit)),
        }),
      }),
      defineTool({
        name: 'execute_runtime_library',
        description:
          'Execute one runtime-library function, e.g. finance.npv with args {rate, cashflows}. `args` is ' +
          'an object of named arguments, an array of positional ones, a scalar or null.',
        endpoint: 'runtime socket: execute',
        answers: RuntimeExecutionResponse,
        visibleWith: 'runtime_library',
        input: ExecuteLibraryArguments,
        annotations: { title: 'Execute a runtime function', ...readOnly },
        run: async (_principal, args) => {
          const call = { module: args.module, function: args.function, args: args.args ?? null };
          return {
            ...toExecutionResponse(
              call,
              await this.runtime.execute(call.module, call.function, call.args, args.request_id),
            ),
          };
        },
      }),
    ];
  }
}
