import { mkdirSync } from 'node:fs';
import {
  DuckDBConnection,
  DuckDBInstance,
  DuckDBType,
  DuckDBTypeId,
  DuckDBValue,
  DuckDBValueConverter,
  doubleFromDecimalValue,
  Json,
  JsonDuckDBValueConverter,
  StatementType,
} from '@duckdb/node-api';
import {
  MAX_EXPRESSION_DEPTH,
  REPORT_PROCESS_TITLE,
  ReportProcessSettings,
  ReportReply,
  ReportRequest,
} from './sql-report-process';
import { ENUM_VALUE_BITS, quoteIdentifier, quoteString } from '../datasets/datasets.types';
import { statementProblem } from './sql-report-statement';

/**
 * The entry file of a report process (started by spawnReportProcess from the compiled daemon). It runs one report
 * at a time, each in a fresh in-memory DuckDB instance that is closed afterwards, so nothing of one report is left
 * for the next. Everything it is told was checked by the daemon; its own job is to let DuckDB parse the statement,
 * refuse what the statement may not call, then stream rows while counting their JSON bytes.
 */

function settingsFromArgv(): ReportProcessSettings {
  return JSON.parse(process.argv[2] ?? '{}') as ReportProcessSettings;
}

/** Integers as JSON numbers while they are exact, as text beyond; decimals as numbers; the rest as DuckDB's JSON. */
const WIDE_INTEGERS: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
]);

const toJson: DuckDBValueConverter<Json> = (value, type, converter) => {
  if (value === null) return null;
  if (WIDE_INTEGERS.has(type.typeId)) {
    const big = value as bigint;
    const small = Number(big);
    return Number.isSafeInteger(small) ? small : big.toString();
  }
  if (type.typeId === DuckDBTypeId.DECIMAL) return doubleFromDecimalValue(value);
  return JsonDuckDBValueConverter(value, type, converter);
};

async function openLocked(
  request: ReportRequest,
  settings: ReportProcessSettings,
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  mkdirSync(settings.spillDir, { recursive: true, mode: 0o700 });
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(settings.threads),
    memory_limit: `${settings.memoryMb}MB`,
    temp_directory: settings.spillDir,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    max_expression_depth: String(MAX_EXPRESSION_DEPTH),
    perfect_ht_threshold: String(ENUM_VALUE_BITS),
  });
  const connection = await instance.connect();
  try {
    for (const file of request.files) {
      await connection.run(`attach ${quoteString(file.path)} as ${quoteIdentifier(file.schema)} (read_only)`);
    }
    for (const view of request.views) await connection.run(view);
    // After these two nothing the statement calls can reach a file, the network or a setting.
    await connection.run('set enable_external_access = false');
    await connection.run('set lock_configuration = true');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return { instance, connection };
}

async function check(connection: DuckDBConnection, request: ReportRequest): Promise<ReportReply | undefined> {
  let count: number;
  try {
    count = (await connection.extractStatements(request.sql)).count;
  } catch (error) {
    return { op: 'refused', phase: 'parse', message: messageOf(error) };
  }
  if (count === 0) return { op: 'refused', phase: 'parse', message: 'no statement' };
  if (count > 1) return { op: 'not_allowed', reason: 'the text holds more than one statement' };
  const serialized = await connection.runAndReadAll('select json_serialize_sql($1::varchar) as ast', [
    request.sql,
  ]);
  const text = serialized.getRowObjectsJson()[0].ast;
  const ast = typeof text === 'string' ? (JSON.parse(text) as unknown) : undefined;
  const verdict = statementProblem(ast, request.tableNames);
  if (verdict === undefined) return undefined;
  return verdict.kind === 'invalid'
    ? { op: 'refused', phase: 'parse', message: verdict.message }
    : { op: 'not_allowed', reason: verdict.reason };
}

async function run(request: ReportRequest, settings: ReportProcessSettings): Promise<ReportReply> {
  const { instance, connection } = await openLocked(request, settings);
  try {
    const refused = await check(connection, request);
    if (refused) return refused;
    const prepared = await connection.prepare(request.sql);
    if (prepared.statementType !== StatementType.SELECT) {
      return { op: 'not_allowed', reason: 'only a SELECT statement is allowed' };
    }
    const result = await prepared.stream();
    const columns = result.columnNames();
    const types: DuckDBType[] = result.columnTypes();
    const rows: Record<string, Json>[] = [];
    let bytes = 2;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (let r = 0; r < chunk.rowCount; r++) {
        if (rows.length >= request.maxRows) return { op: 'rows', columns, rows, truncated: true };
        const values: DuckDBValue[] = chunk.getRowValues(r);
        const row: Record<string, Json> = {};
        values.forEach((value, c) => {
          row[columns[c]] = toJson(value, types[c], toJson);
        });
        bytes += Buffer.byteLength(JSON.stringify(row)) + (rows.length > 0 ? 1 : 0);
        if (bytes > request.maxBytes) return { op: 'too_large', rows: rows.length };
        rows.push(row);
      }
    }
    return { op: 'rows', columns, rows, truncated: false };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function main(): void {
  process.title = REPORT_PROCESS_TITLE;
  const settings = settingsFromArgv();
  process.on('message', (request: ReportRequest) => {
    void run(request, settings)
      .catch((error: unknown): ReportReply => ({ op: 'failed', message: messageOf(error) }))
      .then((reply) => process.send?.(reply));
  });
  // Without its daemon nobody waits for the answer: stop at once, even in the middle of a statement.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ op: 'ready' } satisfies ReportReply);
}

main();
