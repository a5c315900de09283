import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { ColumnSchema } from './column-profile';
import { attachPreviousFormat, SQLITE_FILE_EXTENSION } from './dataset-conversion';
import { openQueryInstance, QueryBudget, ReadOnlyDatabase } from './readonly-database';
import { DATA_TABLE, quoteIdentifier, quoteString } from './sql-identifiers';

const MAX_ATTACHED = 32;

/**
 * Keeps recently queried dataset files attached, read-only, to the daemon's one query instance, so a query pays no
 * open (about 13 ms) and shares one memory and thread budget with every other. Files are immutable, so an attached
 * file never goes stale; a deleted dataset is detached. A version still in the previous SQLite format (its conversion
 * failed at start) is copied into memory instead.
 */
export class DatasetReaders {
  private instance: Promise<DuckDBInstance> | undefined;
  private control: Promise<DuckDBConnection> | undefined;
  private readonly attached = new Map<string, Promise<ReadOnlyDatabase>>();

  constructor(
    private readonly budget: QueryBudget,
    private readonly timeoutMs: number,
  ) {}

  get(id: string, file: string, columns: readonly ColumnSchema[]): Promise<ReadOnlyDatabase> {
    const existing = this.attached.get(id);
    if (existing) {
      this.attached.delete(id);
      this.attached.set(id, existing);
      return existing;
    }
    const opening = this.attach(id, file, columns);
    this.attached.set(id, opening);
    opening.catch(() => this.attached.delete(id));
    while (this.attached.size > MAX_ATTACHED) {
      const [oldest] = this.attached.keys();
      this.evict(oldest);
    }
    return opening;
  }

  private async attach(
    id: string,
    file: string,
    columns: readonly ColumnSchema[],
  ): Promise<ReadOnlyDatabase> {
    const instance = await (this.instance ??= openQueryInstance(this.budget));
    const control = await (this.control ??= instance.connect());
    if (file.endsWith(SQLITE_FILE_EXTENSION)) await attachPreviousFormat(instance, id, file, columns);
    else await control.run(`attach if not exists ${quoteString(file)} as ${quoteIdentifier(id)} (read_only)`);
    // Classified by SQL: an ENUM column's data_type lists every one of its values.
    const described = await control.runAndReadAll(
      `select column_name, regexp_matches(data_type, '^(BIGINT|BOOLEAN|DECIMAL)') as exact, starts_with(data_type, 'ENUM(') as coded
       from duckdb_columns() where database_name = ${quoteString(id)} and table_name = ${quoteString(DATA_TABLE)}`,
    );
    const exact = new Set<string>();
    const coded = new Set<string>();
    for (const [name, isExact, isCoded] of described.getRows()) {
      if (isExact === true) exact.add(String(name));
      if (isCoded === true) coded.add(String(name));
    }
    return new ReadOnlyDatabase(instance, id, this.timeoutMs, exact, coded);
  }

  evict(id: string): void {
    const attached = this.attached.get(id);
    if (!attached) return;
    this.attached.delete(id);
    // A statement still reading it keeps DuckDB's handle alive; the detach only drops the name.
    attached
      .then(async (database) => {
        database.close();
        await (await this.control)?.run(`detach database if exists ${quoteIdentifier(id)}`);
      })
      .catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const instance = this.instance;
    const control = this.control;
    const attached = [...this.attached.values()];
    this.instance = undefined;
    this.control = undefined;
    this.attached.clear();
    for (const database of await Promise.allSettled(attached)) {
      if (database.status === 'fulfilled') database.value.close();
    }
    if (!instance) return;
    try {
      (await control)?.closeSync();
      (await instance).closeSync();
    } catch {
      // Shutting down: nothing to keep.
    }
  }
}
