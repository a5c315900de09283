import { AppError } from '../../common/errors';
import { readingStatementProblem } from '../../common/validation';
import { DATA_TABLE, quoteIdentifier, Row } from '../datasets/datasets.types';
import { ReportProcesses } from './report-processes';
import { MAX_EXPRESSION_DEPTH } from './sql-report-process';

export interface ReportTable {
  readonly datasetId: string;
  readonly filePath: string;
  /** Names the dataset is visible under in the report (its dataset_name, and `dataset` for the first). */
  readonly names: readonly string[];
  /** The stored columns as the view answers them: name and SQL expression (see answeredAs). */
  readonly columns: readonly { name: string; sql: string }[];
  /** Formula columns appended to the view: name and SQL expression over the stored columns. */
  readonly formulas: readonly { name: string; sql: string }[];
}

export interface ReportLimits {
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxBytes: number;
}

export interface ReportResult {
  readonly columns: string[];
  readonly rows: Row[];
  readonly truncated: boolean;
}

function catalogName(index: number): string {
  return `ds${index}`;
}

function viewStatements(tables: readonly ReportTable[]): string[] {
  const statements: string[] = [];
  tables.forEach((table, index) => {
    const extra = table.formulas.map((f) => `, (${f.sql}) as ${quoteIdentifier(f.name)}`).join('');
    const answered = table.columns.map((c) => `${c.sql} as ${quoteIdentifier(c.name)}`).join(', ');
    const stored = answered === '' ? '*' : `* replace (${answered})`;
    for (const name of table.names) {
      statements.push(
        `create temp view ${quoteIdentifier(name)} as select ${stored}${extra} from ${catalogName(index)}.main.${DATA_TABLE}`,
      );
    }
  });
  return statements;
}

function violation(reason: string): AppError {
  return new AppError('read_only_violation', `Only one read-only SELECT statement is allowed: ${reason}.`);
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'result_too_large',
    `The result is larger than the ${maxBytes} bytes one SQL report may return: select fewer columns or rows, or aggregate.`,
    [{ field: 'sql', problem: `the result exceeds ${maxBytes} bytes (SERVICE_SQL_REPORT_MAX_BYTES)` }],
  );
}

function tooExpensive(): AppError {
  return new AppError(
    'query_too_expensive',
    'The SQL report needs more memory than one report may use (SERVICE_QUERY_MEMORY_MB): aggregate, filter or select less.',
  );
}

/** DuckDB's own refusal of the statement (a binder, parser or conversion error), as the caller's error. */
function statementError(message: string): AppError {
  // The first line is DuckDB's finding; the lines after it point into the text or suggest catalog names.
  const clean = message.split('\n')[0].trim();
  if (/^Out of Memory Error/i.test(clean)) return tooExpensive();
  if (/max expression depth/i.test(clean)) {
    return AppError.validation([
      { field: 'sql', problem: `nests expressions more than ${MAX_EXPRESSION_DEPTH} levels deep` },
    ]);
  }
  if (/^(Permission|Invalid Input) Error: .*(disabled|locked|external access)/i.test(clean)) {
    return violation('the statement reaches outside its datasets');
  }
  if (/^[A-Z][A-Za-z ]* Error: /.test(clean)) {
    return AppError.validation([{ field: 'sql', problem: clean }]);
  }
  return AppError.validation([{ field: 'sql', problem: clean || 'could not be run' }]);
}

/** Internal failures of DuckDB or of the process are not the caller's: they stay 500. */
const DUCKDB_USER_ERROR =
  /^(Parser|Binder|Catalog|Conversion|Invalid Input|Out of Range|Out of Memory|Permission|Not implemented|Constraint|Syntax|Interrupt|Dependency|Sequence|Invalid type) Error/i;

export async function runSqlReport(
  sql: string,
  tables: readonly ReportTable[],
  limits: ReportLimits,
  processes: ReportProcesses,
): Promise<ReportResult> {
  const problem = readingStatementProblem(sql);
  if (problem !== undefined) throw violation(problem);
  const outcome = await processes.run(
    {
      op: 'report',
      files: tables.map((table, index) => ({
        path: table.filePath,
        schema: catalogName(index),
      })),
      views: viewStatements(tables),
      tableNames: tables.flatMap((table) => table.names),
      sql,
      maxRows: limits.maxRows,
      maxBytes: limits.maxBytes,
    },
    limits.timeoutMs,
  );
  if (outcome.kind === 'timeout') {
    throw new AppError('query_timeout', `The SQL report exceeded its ${limits.timeoutMs / 1000} s budget.`);
  }
  if (outcome.kind === 'crashed') {
    // A report process that aborts mid-report ran out of its heap (V8 aborts at --max-old-space-size).
    if (outcome.exit === 'SIGABRT' || outcome.exit === 'exit code 134') throw tooExpensive();
    throw new Error(`The SQL report process ended: ${outcome.exit}`);
  }
  const reply = outcome.reply;
  switch (reply.op) {
    case 'rows':
      return { columns: reply.columns, rows: reply.rows, truncated: reply.truncated };
    case 'too_large':
      throw tooLarge(limits.maxBytes);
    case 'not_allowed':
      throw violation(reply.reason);
    case 'refused':
      throw statementError(reply.message);
    case 'failed':
      if (DUCKDB_USER_ERROR.test(reply.message)) throw statementError(reply.message);
      throw new Error(`The SQL report failed: ${reply.message}`);
  }
}
