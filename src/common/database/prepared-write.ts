import { BaseSqlitePlatform, EntityManager } from '@mikro-orm/knex';
import type { Knex } from 'knex';

/**
 * One write statement, written out once by its repository and run through the ORM's raw connection API: none of
 * the ORM's query building or unit of work. Autocommitted, so it waits for
 * (and never joins) a transaction another unit of work holds open; do not call it from inside one. A failure is the
 * ORM's exception (`UniqueConstraintViolationException`…), as `em.insert` would have thrown it.
 */
export class PreparedWrite {
  constructor(
    private readonly em: EntityManager,
    private readonly sql: string,
  ) {}

  async run(params: readonly unknown[]): Promise<void> {
    await this.executed(params, 'run');
  }

  /**
   * Runs the statement and, once it is on the driver's thread, `meanwhile`, so that work which must not be seen
   * before the write commits can be done while that thread writes. Resolves with what `meanwhile` returned once the statement
   * has committed; a failed statement rejects with its error, whatever `meanwhile` did.
   */
  async runWhile<T>(params: readonly unknown[], meanwhile: () => T): Promise<T> {
    const written = this.executed(params, 'run');
    // Its failure is awaited below; handled now so that it cannot count as unhandled meanwhile.
    written.catch(() => undefined);
    // Reaching the driver's thread takes only promise steps: they are all done before the next turn of the loop.
    await new Promise<void>((next) => setImmediate(next));
    let value: T;
    try {
      value = meanwhile();
    } catch (error) {
      // Nothing is answered before the statement is done.
      await written;
      throw error;
    }
    await written;
    return value;
  }

  /** Rows as the driver gives them: a Date column is epoch milliseconds on SQLite, a Date on PostgreSQL. */
  returning<R>(params: readonly unknown[]): Promise<R[]> {
    return this.executed(params, 'all') as Promise<R[]>;
  }

  /** On SQLite the values are bound, not inlined, so the text is the same on every run and its statement is kept. */
  private async executed(params: readonly unknown[], method: 'run' | 'all'): Promise<unknown> {
    const platform = this.em.getPlatform();
    try {
      if (!(platform instanceof BaseSqlitePlatform)) {
        return await this.em.getConnection().execute(this.sql, [...params], method);
      }
      const bindings = params.map((param) => platform.processDateProperty(param)) as Knex.RawBinding[];
      return await this.em.getKnex().raw(this.sql, bindings);
    } catch (error) {
      throw this.em.getDriver().convertException(error as Error);
    }
  }
}
