import { join } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError, toAppError } from '../../common/errors';
import { parseWire } from '../../common/validation';
import { Principal } from '../../common/auth/principal';
import {
  answeredAs,
  ColumnRole,
  enumTypeOf,
  DATA_TABLE,
  duckMessage,
  presentValue,
  quoteIdentifier,
  ROW_COLUMN,
} from '../datasets/datasets.types';
import { DatasetsService, OpenDataset } from '../datasets/datasets.service';
import { compileQuery, compileWhere, StoredForms, SumForm } from './query-compiler';
import { aggregateType, Condition, QueryableColumn, QuerySpec, ScalarValue } from './query-grammar';
import {
  MAX_REPORT_DATASETS,
  QueryBatchRequest,
  QueryBatchResponse,
  QueryPlanResponse,
  QueryRequest,
  QueryResponse,
  SqlReportRequest,
  SqlReportResponse,
  toQuerySpec,
} from './query.dto';
import { Interpretation, QueryNotUnderstoodError, resolveNaturalLanguage } from './nl-resolver';
import { ResultCache } from './result-cache';
import { ReportProcesses } from './report-processes';
import { ReportSlots } from './report-slots';
import { runSqlReport } from './sql-report';

export type QueryResult = QueryResponse;

export interface NumericColumns {
  readonly datasetId: string;
  readonly datasetName: string;
  readonly version: number;
  readonly where: readonly Condition[];
  readonly values: readonly Float64Array[];
  readonly rowsMatching: number;
  readonly sampled: boolean;
}

interface QueryColumnInfo extends QueryableColumn {
  readonly role: ColumnRole;
  readonly sql: string;
}

const MAX_ORDERED_SUMS = 10_000;

const FORMULA_SUM_SCALE = 20;

/** The decimal's scale leaves room for the largest value the profile saw, times the rows, within 38 digits. */
function sumFormOf(name: string, exactColumns: ReadonlySet<string>, dataset: OpenDataset): SumForm {
  if (exactColumns.has(name)) return { kind: 'exact' };
  const column = dataset.columns.find((c) => c.name === name);
  if (!column) return { kind: 'fixed', scale: FORMULA_SUM_SCALE };
  const largest = Math.max(Math.abs(Number(column.min ?? 0)), Math.abs(Number(column.max ?? 0)), 1);
  const digits = Math.ceil(Math.log10(largest * Math.max(dataset.record.rowCount, 1)));
  const scale = 37 - digits;
  return Number.isFinite(scale) && scale >= 0
    ? { kind: 'fixed', scale: Math.min(scale, 30) }
    : { kind: 'ordered' };
}

/** An ENUM column is compared with the code of the value (no code: no row) instead of its every value as text. */
function memberSqlOf(reader: { readonly enumColumns: ReadonlySet<string> }): (name: string) => string {
  return (name) => (reader.enumColumns.has(name) ? `try_cast(? as ${enumTypeOf(name)})` : '?');
}

function isAscending(values: Float64Array): boolean {
  for (let i = 1; i < values.length; i++) if (!(values[i - 1] < values[i])) return false;
  return true;
}

function isFixedPointOverflow(error: unknown): boolean {
  return /^(Conversion Error: Could not cast|Out of Range Error: Overflow)/.test(duckMessage(error));
}

@Injectable()
export class QueryService implements OnApplicationShutdown {
  private readonly results = new ResultCache();
  private readonly orderedSums = new Set<string>();
  private readonly reportSlots: ReportSlots;
  private readonly reportProcesses: ReportProcesses;

  constructor(
    private readonly datasets: DatasetsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.reportSlots = new ReportSlots({
      perCaller: config.sqlReportsPerKey,
      perOrg: config.sqlReportsPerOrg,
      total: config.sqlReportsTotal,
    });
    // Room for the rows as JavaScript values (several times their JSON bytes) above Node's own baseline.
    this.reportProcesses = new ReportProcesses(64 + 8 * Math.ceil(config.sqlReportMaxBytes / 1024 ** 2), {
      memoryMb: config.queryMemoryMb,
      threads: config.queryThreads,
      spillDir: join(config.queryTempDir, 'reports'),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reportProcesses.closeAll();
  }

  async query(principal: Pick<Principal, 'orgId'>, request: QueryRequest): Promise<QueryResult> {
    const dataset = await this.datasets.open(principal.orgId, request.dataset_id);
    const columns = this.queryableColumns(dataset);
    if (request.query !== undefined) return this.naturalLanguage(dataset, columns, request);
    return this.execute(dataset, columns, toQuerySpec(request, columns));
  }

  async batch(principal: Principal, request: QueryBatchRequest): Promise<QueryBatchResponse> {
    const results: QueryBatchResponse['results'] = [];
    for (const query of request.queries) {
      try {
        results.push(await this.query(principal, parseWire(QueryRequest, query)));
      } catch (error) {
        const appError = toAppError(error);
        if (appError.code === 'internal_error' || appError.code === 'store_unavailable') throw error;
        results.push({
          error: {
            code: appError.code,
            message: appError.message,
            ...(appError.details && appError.details.length > 0 ? { details: appError.details } : {}),
          },
        });
      }
    }
    return { results };
  }

  async sqlReport(principal: Principal, request: SqlReportRequest): Promise<SqlReportResponse> {
    const { sql } = request;
    const ids = this.reportDatasetIds(request);
    const opened: OpenDataset[] = [];
    for (const id of ids) opened.push(await this.datasets.open(principal.orgId, id));
    const unconverted = opened.find((dataset) => dataset.isPreviousFormat);
    if (unconverted) {
      throw new AppError(
        'dataset_not_converted',
        `Dataset version ${unconverted.record.id} is still in the previous SQLite format (its conversion to DuckDB failed; the log says why under dataset_conversion_failed): typed and natural-language queries read it, SQL reports need the converted file. Restart the daemon to retry the conversion, or connect the source again for a new version.`,
      );
    }
    const seen = new Set<string>();
    const tables = opened.map((dataset, index) => {
      const names = [dataset.record.datasetName, ...(index === 0 ? ['dataset'] : [])].filter(
        (name, i, all) => {
          return all.indexOf(name) === i;
        },
      );
      for (const name of names) {
        if (seen.has(name.toLowerCase())) {
          throw AppError.validation([
            {
              field: 'dataset_ids',
              problem: `two datasets would both be visible as "${name}"; pick one version`,
            },
          ]);
        }
        seen.add(name.toLowerCase());
      }
      return {
        datasetId: dataset.record.id,
        filePath: dataset.filePath,
        names,
        columns: dataset.columns.map((c) => ({
          name: c.name,
          sql: answeredAs(c.type, quoteIdentifier(c.name)),
        })),
        formulas: dataset.formulas.map((f) => ({ name: f.name, sql: answeredAs(f.type, `(${f.sql})`) })),
      };
    });
    const timeoutMs = this.config.sqlReportTimeoutS * 1000;
    const caller = principal.keyId ?? `user:${principal.userId ?? ''}`;
    const release = this.reportSlots.take(caller, principal.orgId, timeoutMs);
    const started = process.hrtime.bigint();
    let result;
    try {
      result = await runSqlReport(
        sql,
        tables,
        { timeoutMs, maxRows: this.config.sqlReportMaxRows, maxBytes: this.config.sqlReportMaxBytes },
        this.reportProcesses,
      );
    } finally {
      release();
    }
    return {
      columns: result.columns,
      rows: result.rows,
      row_count: result.rows.length,
      truncated: result.truncated,
      tables: tables.map((t) => ({ dataset_id: t.datasetId, names: t.names })),
      elapsed_ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
    };
  }

  /** Above `maxRows` matching rows, `maxRows` of them evenly spaced in row order, the same ones every time. */
  async numericColumns(
    orgId: string,
    datasetId: string,
    columns: readonly string[],
    where: readonly unknown[] | undefined,
    maxRows: number,
  ): Promise<NumericColumns> {
    const dataset = await this.datasets.open(orgId, datasetId);
    const queryable = this.queryableColumns(dataset);
    const byName = new Map(queryable.map((c) => [c.name, c]));
    for (const name of columns) {
      const column = byName.get(name);
      if (!column) {
        throw AppError.validation([{ field: 'column', problem: `the dataset has no column "${name}"` }]);
      }
      if (column.type !== 'number' && column.type !== 'integer') {
        throw new AppError(
          'column_not_numeric',
          `Column "${name}" holds ${column.type} values, not numbers.`,
          [{ field: 'column', problem: `"${name}" is a ${column.type} column` }],
        );
      }
    }
    const checked = toQuerySpec({ select: [...columns], ...(where ? { where } : {}) }, queryable);
    const reader = await dataset.reader();
    const filter = compileWhere(
      [...checked.where, ...columns.map((column) => ({ column, op: 'not_null' as const }))],
      (name) => (byName.get(name) as QueryColumnInfo).sql,
      memberSqlOf(reader),
    );
    const [count] = await reader.all<{ n: number }>(
      `select count(*) as n from ${DATA_TABLE}${filter.sql}`,
      filter.params,
    );
    const rowsMatching = count.n;
    const sampled = rowsMatching > maxRows;
    const row = quoteIdentifier(ROW_COLUMN);
    const outputs = columns.map((name, i) => `cast(${byName.get(name)?.sql} as double) as v${i}`);
    // Row r of the matching rows, counted from 0, is kept when (r * max) mod n < max: all of them when n <= max.
    const read = (numbering: string, order: string): Promise<Float64Array[]> =>
      reader.columns(
        `select ${columns.map((_, i) => `v${i}`).join(', ')}, ${row} from (select ${outputs.join(', ')}, ${row}, row_number() over (${numbering}) - 1 as r from ${DATA_TABLE}${filter.sql})${sampled ? ' where (r * ?) % ? < ?' : ''}${order}`,
        [...filter.params, ...(sampled ? [maxRows, rowsMatching, maxRows] : [])],
      );
    // A scan numbers rows in insertion order, which is row order; checked, and numbered by sorting if it is not.
    let columnsRead = await read('', '');
    if (!isAscending(columnsRead[columns.length])) columnsRead = await read(`order by ${row}`, ' order by r');
    const values = columnsRead.slice(0, columns.length);
    return {
      datasetId: dataset.record.id,
      datasetName: dataset.record.datasetName,
      version: dataset.record.version,
      where: checked.where,
      values,
      rowsMatching,
      sampled,
    };
  }

  private reportDatasetIds(request: SqlReportRequest): string[] {
    const unique = [
      ...new Set([...(request.dataset_id ? [request.dataset_id] : []), ...(request.dataset_ids ?? [])]),
    ];
    if (unique.length > MAX_REPORT_DATASETS) {
      throw AppError.validation([
        { field: 'dataset_ids', problem: `at most ${MAX_REPORT_DATASETS} datasets` },
      ]);
    }
    return unique;
  }

  private queryableColumns(dataset: OpenDataset): QueryColumnInfo[] {
    return [
      ...dataset.columns.map((c) => ({
        name: c.name,
        type: c.type,
        role: c.role,
        sql: quoteIdentifier(c.name),
      })),
      ...dataset.formulas.map((f) => ({
        name: f.name,
        type: f.type,
        role: f.type === 'number' ? ('measure' as const) : ('dimension' as const),
        sql: `(${f.sql})`,
      })),
    ];
  }

  private async naturalLanguage(
    dataset: OpenDataset,
    columns: readonly QueryColumnInfo[],
    request: QueryRequest,
  ): Promise<QueryResult> {
    let resolution;
    try {
      resolution = resolveNaturalLanguage(request.query ?? '', {
        columns,
        snapshotTime: new Date(dataset.record.ingestedAt),
      });
    } catch (error) {
      if (error instanceof QueryNotUnderstoodError) {
        throw new AppError(
          'query_not_understood',
          `The query could not be resolved unambiguously: ${error.message}.`,
          error.hints.map((hint) => ({ field: 'query', problem: hint })),
        );
      }
      throw error;
    }
    const typed = {
      ...resolution.query,
      ...(request.limit !== undefined ? { limit: request.limit } : {}),
      ...(request.offset !== undefined ? { offset: request.offset } : {}),
    };
    let spec: QuerySpec;
    try {
      spec = toQuerySpec(typed, columns);
    } catch (error) {
      if (error instanceof AppError && error.code === 'validation_failed' && request.limit === undefined) {
        throw new AppError(
          'query_not_understood',
          `The query resolved to an invalid plan: ${error.message}`,
          error.details,
        );
      }
      throw error;
    }
    const where = await this.matchTextValues(dataset, columns, spec.where);
    return this.execute(dataset, columns, { ...spec, where }, resolution.interpretation);
  }

  /** "region is west" finds "West" only when that names exactly one stored value. */
  private async matchTextValues(
    dataset: OpenDataset,
    columns: readonly QueryColumnInfo[],
    where: readonly Condition[],
  ): Promise<Condition[]> {
    const out: Condition[] = [];
    for (const condition of where) {
      const column = columns.find((c) => c.name === condition.column);
      if (
        !column ||
        column.type !== 'string' ||
        (condition.op !== 'eq' && condition.op !== 'ne' && condition.op !== 'in')
      ) {
        out.push(condition);
        continue;
      }
      const values = Array.isArray(condition.value) ? condition.value : [condition.value];
      const matched = [];
      for (const value of values) matched.push(await this.storedSpelling(dataset, column, String(value)));
      out.push({ ...condition, value: Array.isArray(condition.value) ? matched : matched[0] });
    }
    return out;
  }

  private async storedSpelling(
    dataset: OpenDataset,
    column: QueryColumnInfo,
    value: string,
  ): Promise<string> {
    const reader = await dataset.reader();
    const rows = await reader.all<{ value: string }>(
      `select distinct ${answeredAs(column.type, column.sql)} as value from ${DATA_TABLE} where lower(${column.sql}) = lower(?) order by 1 limit 2`,
      [value],
    );
    return rows.length === 1 ? rows[0].value : value;
  }

  private async execute(
    dataset: OpenDataset,
    columns: readonly QueryColumnInfo[],
    spec: QuerySpec,
    interpretation?: Interpretation,
  ): Promise<QueryResult> {
    const byName = new Map(columns.map((c) => [c.name, c]));
    const reader = await dataset.reader();
    const columnSql = (name: string): string => (byName.get(name) as QueryColumnInfo).sql;
    const sumForm = (name: string): SumForm =>
      this.orderedSums.has(`${dataset.record.id}\u0000${name}`) && !reader.exactColumns.has(name)
        ? { kind: 'ordered' }
        : sumFormOf(name, reader.exactColumns, dataset);
    const forms: StoredForms = {
      sumForm,
      answerSql: (name, sql) => answeredAs((byName.get(name) as QueryColumnInfo).type, sql),
      memberSql: memberSqlOf(reader),
    };
    let compiled = compileQuery(spec, columnSql, forms);
    let raw = this.results.get(ResultCache.key(dataset.record.id, compiled.sql, compiled.params));
    if (!raw) {
      try {
        raw = await reader.all(compiled.sql, compiled.params);
      } catch (error) {
        if (!isFixedPointOverflow(error)) throw error;
        if (this.orderedSums.size >= MAX_ORDERED_SUMS) this.orderedSums.clear();
        for (const a of spec.aggregates) {
          if (a.column !== undefined) this.orderedSums.add(`${dataset.record.id}\u0000${a.column}`);
        }
        compiled = compileQuery(spec, columnSql, forms);
        raw = await reader.all(compiled.sql, compiled.params);
      }
      this.results.set(ResultCache.key(dataset.record.id, compiled.sql, compiled.params), raw);
    }
    const truncated = raw.length > spec.limit;
    if (truncated) raw = raw.slice(0, spec.limit);

    const grouped = spec.groupBy.length > 0 || spec.aggregates.length > 0;
    const output = grouped
      ? [
          ...spec.groupBy.map((name) => ({ name, type: (byName.get(name) as QueryColumnInfo).type })),
          ...spec.aggregates.map((a) => ({
            name: a.as,
            type: aggregateType(a.function, a.column === undefined ? undefined : byName.get(a.column)?.type),
          })),
        ]
      : spec.select.map((name) => ({ name, type: (byName.get(name) as QueryColumnInfo).type }));
    const rows = raw.map((row) => {
      const out: Record<string, ScalarValue | null> = {};
      for (const column of output) {
        const value = row[column.name] as number | string | null;
        out[column.name] = column.type === 'boolean' ? presentValue(value, 'boolean') : value;
      }
      return out;
    });
    const plan: QueryPlanResponse = {
      dataset_id: dataset.record.id,
      dataset_name: dataset.record.datasetName,
      version: dataset.record.version,
      kind: grouped ? 'aggregate' : 'rows',
      select: spec.select,
      where: spec.where,
      group_by: spec.groupBy,
      aggregates: spec.aggregates.map((a) => ({ function: a.function, column: a.column ?? null, as: a.as })),
      order_by: compiled.orderBy,
      limit: spec.limit,
      offset: spec.offset,
      sql: compiled.sql,
      answered_from: 'dataset',
      ...(interpretation ? { interpretation } : {}),
    };
    return { rows, columns: output, plan, row_count: rows.length, truncated };
  }
}
