import { AppError } from '../../common/errors';
import { readingStatementProblem } from '../../common/validation';
import { DATA_TABLE, quoteIdentifier, Row } from '../datasets/datasets.types';
import { ReportProcesses } from './report-processes';

export interface ReportTable {
  readonly datasetId: string;
  readonly filePath: string;
  /** Names the dataset is visible under in the report (its dataset_name, and `dataset` for the first). */
  readonly names: readonly string[];
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

function schemaName(index: number): string {
  return index === 0 ? 'main' : `ds${index}`;
}

function viewStatements(tables: readonly ReportTable[]): string[] {
  const statements: string[] = [];
  tables.forEach((table, index) => {
    const extra = table.formulas.map((f) => `, (${f.sql}) as ${quoteIdentifier(f.name)}`).join('');
    for (const name of table.names) {
      statements.push(
        `create temp view ${quoteIdentifier(name)} as select *${extra} from ${quoteIdentifier(schemaName(index))}.${DATA_TABLE}`,
      );
    }
  });
  return statements;
}

function violation(reason: string): AppError {
  return new AppError('read_only_violation', `Only one read-only SELECT statement is allowed: ${reason}.`);
}

/**
 * Reads the statement's leading keyword: only reading statements are sent on. The PRAGMA table functions
 * (`pragma_database_list`) are refused anywhere in the text: they show the server's file paths.
 */
function checkLeadingKeyword(sql: string): void {
  const problem = readingStatementProblem(sql);
  if (problem !== undefined) throw violation(problem);
  if (/\bpragma_\w/i.test(sql)) throw violation('PRAGMA table functions (pragma_*) are not allowed');
}

/** SQLite's refusal to prepare the statement, as the caller's error. */
function prepareError(message: string): AppError {
  if (/more than one statement/i.test(message)) return violation('the text holds more than one statement');
  if (/cannot modify|readonly|read-only|may not be modified/i.test(message)) {
    return violation('the statement would write');
  }
  if (/empty|no statement/i.test(message))
    return AppError.validation([{ field: 'sql', problem: 'is empty' }]);
  return AppError.validation([{ field: 'sql', problem: message }]);
}

function tooLarge(maxBytes: number): AppError {
  return new AppError(
    'result_too_large',
    `The result is larger than the ${maxBytes} bytes one SQL report may return: select fewer columns or rows, or aggregate.`,
    [{ field: 'sql', problem: `the result exceeds ${maxBytes} bytes (SERVICE_SQL_REPORT_MAX_BYTES)` }],
  );
}

/**
 * Runs one read-only statement over dataset files in a report process (see sql-report-process.ts). SQLite itself
 * decides whether the text is one statement and whether it reads only: it is prepared against the same views
 * (refusing a second statement), and sqlite3_stmt_readonly and whether it returns rows are checked. Read-only by
 * construction: the connection is opened SQLITE_OPEN_READONLY, `query_only` is on, no further database can be
 * attached, only `maxRows` rows and `maxBytes` bytes of rows are taken, and the process is killed at the budget.
 */
export async function runSqlReport(
  sql: string,
  tables: readonly ReportTable[],
  limits: ReportLimits,
  processes: ReportProcesses,
): Promise<ReportResult> {
  checkLeadingKeyword(sql);
  const outcome = await processes.run(
    {
      op: 'report',
      files: tables.map((table, index) => ({ path: table.filePath, schema: schemaName(index) })),
      views: viewStatements(tables),
      sql,
      maxRows: limits.maxRows,
      maxBytes: limits.maxBytes,
    },
    limits.timeoutMs,
  );
  if (outcome.kind === 'timeout') {
    throw new AppError('query_timeout', `The SQL report exceeded its ${limits.timeoutMs / 1000} s budget.`);
  }
  if (outcome.kind === 'crashed') throw new Error(`The SQL report process ended: ${outcome.exit}`);
  const reply = outcome.reply;
  switch (reply.op) {
    case 'rows':
      return { columns: reply.columns, rows: reply.rows, truncated: reply.truncated };
    case 'too_large':
      throw tooLarge(limits.maxBytes);
    case 'refused':
      throw prepareError(reply.message);
    case 'not_read_only':
      throw violation(
        reply.reader
          ? 'the statement would write'
          : 'the statement returns no rows (writes, ATTACH and PRAGMA are refused)',
      );
    case 'failed': {
      if (reply.code === 'SQLITE_TOOBIG') throw tooLarge(limits.maxBytes);
      if (reply.code === 'SQLITE_READONLY') throw violation('the statement would write');
      if (/too many attached databases/i.test(reply.message)) throw violation('ATTACH is not allowed');
      if (reply.code?.startsWith('SQLITE_')) {
        throw AppError.validation([{ field: 'sql', problem: reply.message.replace(/^SQLITE_\w+: /, '') }]);
      }
      throw new Error(`The SQL report failed: ${reply.message}`);
    }
  }
}
