import { EntityManager } from '@mikro-orm/knex';

/** A node-sqlite3 connection, which keeps the statements it runs (`cacheStatements`). */
interface SqliteConnection {
  run(sql: string, params: readonly unknown[], callback: (error: Error | null) => void): unknown;
  all(
    sql: string,
    params: readonly unknown[],
    callback: (error: Error | null, rows: unknown[]) => void,
  ): unknown;
}

/** The part of knex's client that lends out pooled connections. */
interface ConnectionLender {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

const isSqliteConnection = (connection: unknown): connection is SqliteConnection =>
  typeof (connection as { prepare?: unknown } | null)?.prepare === 'function';

/**
 * One write statement run straight on the pooled SQLite connection, which keeps it prepared (`cacheStatements`):
 * none of the ORM's query building, and one trip to the driver's thread per write (`returning` for one that answers
 * rows). The connection is borrowed from the ORM's pool, so the write waits for (and never joins) a transaction another unit
 * of work holds open; do not call it from inside one. Another driver runs the same SQL through `execute`. Either way
 * a failure is the ORM's exception (`UniqueConstraintViolationException`…), as `em.insert` would have thrown it.
 */
export class PreparedWrite {
  constructor(
    private readonly em: EntityManager,
    private readonly sql: string,
  ) {}

  /** Runs the statement; resolves once it has committed. */
  run(params: readonly unknown[]): Promise<void> {
    return this.runWhile(params, () => undefined);
  }

  /**
   * Runs the statement and, as soon as it is handed to the driver's thread, `meanwhile` on this one, so that work
   * which must not be seen before the write commits can still be done while it runs. Resolves with what `meanwhile`
   * returned once the statement has committed; a failed statement rejects with its error, whatever `meanwhile` did.
   */
  runWhile<T>(params: readonly unknown[], meanwhile: () => T): Promise<T> {
    return this.onLentConnection(
      async (connection, bound) => {
        const written = new Promise<void>((done, fail) =>
          connection.run(this.sql, bound, (error) => (error ? fail(this.converted(error)) : done())),
        );
        let value: T;
        try {
          value = meanwhile();
        } catch (error) {
          // The connection goes back to the pool only once its statement is done.
          await written;
          throw error;
        }
        await written;
        return value;
      },
      async () => {
        await this.executed(params, 'run');
        return meanwhile();
      },
      params,
    );
  }

  /**
   * Runs a statement that answers rows (`update … returning *`) and resolves with them as the driver gives them: on
   * SQLite a Date column is epoch milliseconds, on PostgreSQL a Date. Autocommitted, as `run` is.
   */
  returning<R>(params: readonly unknown[]): Promise<R[]> {
    return this.onLentConnection(
      (connection, bound) =>
        new Promise<R[]>((done, fail) =>
          connection.all(this.sql, bound, (error, rows) =>
            error ? fail(this.converted(error)) : done(rows as R[]),
          ),
        ),
      () => this.executed(params, 'all') as Promise<R[]>,
      params,
    );
  }

  /**
   * Borrows a connection from the ORM's pool: on SQLite runs `onSqlite` on it with the parameters as the ORM binds
   * them, and gives the connection back once that is done; on another driver gives it back at once and runs
   * `otherwise`.
   */
  private async onLentConnection<R>(
    onSqlite: (connection: SqliteConnection, bound: unknown[]) => Promise<R>,
    otherwise: () => Promise<R>,
    params: readonly unknown[],
  ): Promise<R> {
    const lender = this.em.getConnection().getKnex().client as ConnectionLender;
    const connection = await lender.acquireConnection();
    if (!isSqliteConnection(connection)) {
      await lender.releaseConnection(connection);
      return otherwise();
    }
    try {
      return await onSqlite(connection, this.bound(params));
    } finally {
      await lender.releaseConnection(connection);
    }
  }

  /** The statement through the ORM's connection (another driver), failing with the ORM's exception. */
  private executed(params: readonly unknown[], method: 'run' | 'all'): Promise<unknown> {
    return this.em
      .getConnection()
      .execute(this.sql, [...params], method)
      .catch((error: unknown) => {
        throw this.converted(error);
      });
  }

  /** As the ORM binds them: a Date is epoch milliseconds on SQLite (the driver would make it a float). */
  private bound(params: readonly unknown[]): unknown[] {
    const platform = this.em.getPlatform();
    return params.map((param) => platform.processDateProperty(param));
  }

  /** The statement's failure as the ORM's exception; what `meanwhile` throws is left as it is. */
  private converted(error: unknown): Error {
    return this.em.getDriver().convertException(error as Error);
  }
}
