import Database from 'better-sqlite3';
import { AppError } from '../../common/errors';
import { ReadOnlyDatabase, Row, isInterrupted, sqliteCode } from '../datasets/readonly-database';
import { DATA_TABLE, quoteIdentifier } from '../datasets/sql-identifiers';

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
}

export interface ReportResult {
  readonly columns: string[];
  readonly rows: Row[];
  readonly truncated: boolean;
}

const LEADING_KEYWORD = /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*([A-Za-z]+)/;
const READING_KEYWORDS = ['select', 'with', 'values'];

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
 * SQLite itself decides whether the text is one statement and whether it reads only: better-sqlite3 prepares it
 * against the same views (refusing a second statement) and reports sqlite3_stmt_readonly and whether it returns rows.
 * Returns the result column names.
 */
function inspect(sql: string, tables: readonly ReportTable[]): string[] {
  const keyword = LEADING_KEYWORD.exec(sql)?.[1]?.toLowerCase();
  if (keyword === 'pragma') throw violation('PRAGMA statements are not allowed');
  if (keyword !== undefined && !READING_KEYWORDS.includes(keyword)) {
    throw violation(`${keyword.toUpperCase()} statements are not allowed`);
  }
  const db = new Database(tables[0].filePath, { readonly: true, fileMustExist: true });
  try {
    tables.slice(1).forEach((table, i) => {
      db.prepare(`attach database ? as ${quoteIdentifier(schemaName(i + 1))}`).run(table.filePath);
    });
    for (const statement of viewStatements(tables)) db.exec(statement);
    let prepared: Database.Statement;
    try {
      prepared = db.prepare(sql);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/more than one statement/i.test(message)) throw violation('the text holds more than one statement');
      if (/cannot modify|readonly|read-only|may not be modified/i.test(message)) {
        throw violation('the statement would write');
      }
      if (/empty|no statement/i.test(message)) {
        throw AppError.validation([{ field: 'sql', problem: 'is empty' }]);
      }
      throw AppError.validation([{ field: 'sql', problem: message }]);
    }
    if (!prepared.reader)
      throw violation('the statement returns no rows (writes, ATTACH and PRAGMA are refused)');
    if (!prepared.readonly) throw violation('the statement would write');
    return prepared.columns().map((c) => c.name);
  } finally {
    db.close();
  }
}

/**
 * Runs one read-only statement over dataset files. Read-only by construction: the connection is opened
 * SQLITE_OPEN_READONLY, `query_only` is on, no further database can be attached (the attached-database limit drops
 * to zero once the datasets are attached), the text is checked to be a single read-only statement, a timer
 * interrupts it, and only `maxRows` rows are taken.
 */
export async function runSqlReport(
  sql: string,
  tables: readonly ReportTable[],
  limits: ReportLimits,
): Promise<ReportResult> {
  const columns = inspect(sql, tables);
  const db = await ReadOnlyDatabase.open(tables[0].filePath);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    db.interrupt();
  }, limits.timeoutMs);
  try {
    for (const [i, table] of tables.slice(1).entries()) {
      await db.run(`attach database ? as ${quoteIdentifier(schemaName(i + 1))}`, [table.filePath]);
    }
    for (const statement of viewStatements(tables)) await db.exec(statement);
    await db.exec('pragma query_only = 1');
    db.limitAttachedDatabases(0);
    const rows: Row[] = [];
    let truncated = false;
    await db.each(sql, [], (row) => {
      if (rows.length >= limits.maxRows) {
        truncated = true;
        return false;
      }
      rows.push(row);
      return true;
    });
    if (timedOut) throw Object.assign(new Error('interrupted'), { code: 'SQLITE_INTERRUPT' });
    return { columns, rows, truncated };
  } catch (error) {
    if (timedOut && isInterrupted(error)) {
      throw new AppError('query_timeout', `The SQL report exceeded its ${limits.timeoutMs / 1000} s budget.`);
    }
    const code = sqliteCode(error);
    const message =
      typeof error === 'object' && error !== null ? String((error as { message?: unknown }).message) : '';
    if (code === 'SQLITE_READONLY') throw violation('the statement would write');
    if (/too many attached databases/i.test(message)) throw violation('ATTACH is not allowed');
    if (code !== undefined) {
      throw AppError.validation([{ field: 'sql', problem: message.replace(/^SQLITE_\w+: /, '') }]);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    await db.close();
  }
}
