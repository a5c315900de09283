import { mkdirSync } from 'node:fs';
import {
  DuckDBConnection,
  DuckDBDecimalValue,
  DuckDBInstance,
  DuckDBPreparedStatement,
  DuckDBValue,
} from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../common/errors';
import { ENUM_VALUE_BITS } from './dataset-store-layout';
import { quoteIdentifier } from './sql-identifiers';

export type Row = Record<string, unknown>;
export type PlainValue = number | string | null;

export interface QueryBudget {
  readonly memoryMb: number;
  readonly threads: number;
  readonly tempDir: string;
}

/** A DuckDB error's message; native errors may come from another realm, so no instanceof. */
export function duckMessage(error: unknown): string {
  const message =
    typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return typeof message === 'string' ? message : '';
}

/** DuckDB's message for a statement stopped by `interrupt()`. */
function isInterrupted(error: unknown): boolean {
  return /^INTERRUPT Error/i.test(duckMessage(error));
}

function isOutOfMemory(error: unknown): boolean {
  return /^Out of Memory Error/i.test(duckMessage(error));
}

/**
 * Values as the query module's callers have always received them: numbers (64-bit integers and decimals as the
 * double they were stored from), text, and booleans as 1/0.
 */
export function plainValue(value: DuckDBValue): PlainValue {
  if (value === null) return null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  // JSON has no Infinity or NaN; the engine's answers carry them as null too.
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return value;
  // The decimal's own digits, parsed once: the double the value was stored from, whatever its scale.
  return value instanceof DuckDBDecimalValue ? Number(value.toString()) : value.toString();
}

const MAX_IDLE_CONNECTIONS = 4;
/** Statements kept prepared per connection: preparing is about a third of a short select's time in DuckDB. */
const KEPT_STATEMENTS = 32;

/** A connection to the version with the statements it has prepared, by their text. */
interface Session {
  readonly connection: DuckDBConnection;
  readonly statements: LRUCache<string, DuckDBPreparedStatement>;
}

/**
 * One dataset version attached to the daemon's query instance. A statement runs alone on its connection, so a
 * timeout interrupts exactly that statement; connections already switched to the version are kept for the next
 * statement (an interrupted or failed one is closed).
 */
export class ReadOnlyDatabase {
  private readonly idle: Session[] = [];
  private closed = false;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly alias: string,
    private readonly timeoutMs: number,
    /** Columns stored as integers, decimals or booleans: sums over them are exact in any order. */
    readonly exactColumns: ReadonlySet<string>,
    /** Text columns stored as ENUM codes (dataset-store-layout). */
    readonly enumColumns: ReadonlySet<string>,
  ) {}

  async all<T = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.run(async (session) => {
      const reader = await (await prepared(session, sql, params)).runAndReadAll();
      const names = reader.columnNames();
      return reader.getRows().map((values) => {
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i]] = plainValue(values[i]);
        return row as T;
      });
    });
  }

  /** Every column of the answer as numbers (null as NaN), without building a row object per row. */
  async columns(sql: string, params: readonly unknown[] = []): Promise<Float64Array[]> {
    return this.run(async (session) => {
      const result = await (await prepared(session, sql, params)).run();
      const chunks = Array.from({ length: result.chunkCount }, (_, c) => result.getChunk(c));
      const rows = chunks.reduce((sum, chunk) => sum + chunk.rowCount, 0);
      const out = Array.from({ length: result.columnCount }, () => new Float64Array(rows));
      let offset = 0;
      for (const chunk of chunks) {
        for (let column = 0; column < out.length; column++) {
          const vector = chunk.getColumnVector(column);
          for (let i = 0; i < chunk.rowCount; i++) {
            const item = vector.getItem(i);
            out[column][offset + i] = item === null ? NaN : Number(item);
          }
        }
        offset += chunk.rowCount;
      }
      return out;
    });
  }

  close(): void {
    this.closed = true;
    for (const session of this.idle.splice(0)) endSession(session);
  }

  private async run<T>(work: (session: Session) => Promise<T>): Promise<T> {
    const session = this.idle.pop() ?? (await this.connect());
    let timedOut = false;
    let reusable = false;
    const timer = setTimeout(() => {
      timedOut = true;
      session.connection.interrupt();
    }, this.timeoutMs);
    try {
      const answer = await work(session);
      reusable = !timedOut;
      return answer;
    } catch (error) {
      if (timedOut && isInterrupted(error)) {
        throw new AppError('query_timeout', `The query exceeded its ${this.timeoutMs / 1000} s budget.`);
      }
      if (isOutOfMemory(error)) throw new AppError('query_too_expensive');
      throw error;
    } finally {
      clearTimeout(timer);
      if (reusable && !this.closed && this.idle.length < MAX_IDLE_CONNECTIONS) this.idle.push(session);
      else endSession(session);
    }
  }

  private async connect(): Promise<Session> {
    const connection = await this.instance.connect();
    await connection.run(`use ${quoteIdentifier(this.alias)}`);
    const statements = new LRUCache<string, DuckDBPreparedStatement>({
      max: KEPT_STATEMENTS,
      dispose: (statement) => statement.destroySync(),
    });
    return { connection, statements };
  }
}

/** The statement for `sql` on the session's connection, prepared once and bound afresh. */
async function prepared(
  session: Session,
  sql: string,
  params: readonly unknown[],
): Promise<DuckDBPreparedStatement> {
  let statement = session.statements.get(sql);
  if (statement === undefined) {
    statement = await session.connection.prepare(sql);
    session.statements.set(sql, statement);
  }
  statement.bind(params as DuckDBValue[]);
  return statement;
}

function endSession(session: Session): void {
  session.statements.clear();
  session.connection.closeSync();
}

/** The daemon's one DuckDB instance for dataset queries: its memory, threads and spill directory are the budget. */
export async function openQueryInstance(budget: QueryBudget): Promise<DuckDBInstance> {
  mkdirSync(budget.tempDir, { recursive: true, mode: 0o700 });
  return DuckDBInstance.create(':memory:', {
    threads: String(budget.threads),
    memory_limit: `${budget.memoryMb}MB`,
    max_temp_directory_size: '10GB',
    temp_directory: budget.tempDir,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    perfect_ht_threshold: String(ENUM_VALUE_BITS),
    // The query compiler leaves out ORDER BY "_row" alone: a scan answers in insertion order, which is row order.
    preserve_insertion_order: 'true',
  });
}
