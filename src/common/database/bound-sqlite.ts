import {
  JsonProperty,
  Utils,
  type AnyEntity,
  type Configuration,
  type EntityData,
  type QueryResult,
  type Transaction,
} from '@mikro-orm/core';
import type { Knex } from 'knex';
import { AbstractSqlDriver, SqliteConnection, SqlitePlatform } from '@mikro-orm/sqlite';

/** SQL text with `?` placeholders and the values bound to them, in order. */
export interface BoundQuery {
  sql: string;
  bindings: string[];
}

/**
 * The ORM inlines every parameter into the SQL text, and SQLite stops reading the text at a NUL byte: a string holding
 * U+0000 failed as "unrecognized token". Strings (and JSON, which the ORM stores as its string) are bound instead, so
 * they reach SQLite whole; every other value is inlined exactly as the platform inlined it, so nothing stored changes
 * format. Returns undefined when the result could not be handed to knex unambiguously (a `?` left in the inlined
 * text, which knex would count as a placeholder); the caller then inlines as before.
 */
export function bindStrings(
  platform: SqlitePlatform,
  sql: string,
  params: readonly unknown[],
): BoundQuery | undefined {
  const bindings: string[] = [];
  let inlinedQuestionMark = false;
  const inline = (text: string): string => {
    if (text.includes('?')) inlinedQuestionMark = true;
    return text;
  };

  const value = (param: unknown): string => {
    if (Utils.isRawSql(param)) return substitute(param.sql, param.params ?? []);
    if (param instanceof Date || param === null || typeof param !== 'object') {
      if (typeof param !== 'string') return inline(platform.quoteValue(param));
      bindings.push(param);
      return '?';
    }
    // knex's Ref and Raw come back as themselves; the platform concatenated them, so their text is taken the same way.
    if (platform.isRaw(param)) return inline(String(platform.quoteValue(param)));
    if (Utils.isPlainObject(param) || (param as { [JsonProperty]?: unknown })[JsonProperty]) {
      bindings.push(JSON.stringify(param));
      return '?';
    }
    if (Array.isArray(param)) return list(param);
    return inline(platform.quoteValue(param));
  };

  // Mirrors sqlstring's arrayToList: nested arrays in parentheses, other elements escaped one by one.
  const list = (items: readonly unknown[]): string =>
    items
      .map((item) => {
        if (Array.isArray(item)) return `(${list(item)})`;
        if (typeof item === 'string') {
          bindings.push(item);
          return '?';
        }
        return inline(platform.escape(item));
      })
      .join(', ');

  // Same scan as the platform's formatQuery: `??` is an identifier, `\?` a literal question mark, `?` a value.
  const substitute = (text: string, values: readonly unknown[]): string => {
    if (values.length === 0) return inline(text);
    let next = 0;
    let out = '';
    let pos = 0;
    if (text.startsWith('??')) {
      out += inline(platform.quoteIdentifier(values[next++] as string));
      pos = 2;
    } else if (text.startsWith('?')) {
      out += value(values[next++]);
      pos = 1;
    }
    while (pos < text.length) {
      const at = text.indexOf('?', pos + 1);
      if (at === -1) {
        out += inline(text.substring(pos));
        break;
      }
      if (text.substring(at - 1, at + 1) === '\\?') {
        out += inline(text.substring(pos, at - 1) + '?');
        pos = at + 1;
      } else if (text.substring(at, at + 2) === '??') {
        out += inline(text.substring(pos, at)) + inline(platform.quoteIdentifier(values[next++] as string));
        pos = at + 2;
      } else {
        out += inline(text.substring(pos, at)) + value(values[next++]);
        pos = at + 1;
      }
    }
    return out;
  };

  const bound = substitute(sql, params);
  if (inlinedQuestionMark || bound.includes('??')) return undefined;
  return { sql: bound, bindings };
}

interface QueryLogger {
  getSql(query: string, formatted: string, context?: unknown): string;
}

/** The SQLite connection, with string parameters bound rather than inlined (see `bindStrings`). */
export class BoundSqliteConnection extends SqliteConnection {
  override async execute<
    T extends QueryResult | EntityData<AnyEntity> | EntityData<AnyEntity>[] = EntityData<AnyEntity>[],
  >(
    queryOrKnex: string | Knex.QueryBuilder | Knex.Raw,
    params: unknown[] = [],
    method: 'all' | 'get' | 'run' = 'all',
    ctx?: Transaction,
    loggerContext?: Parameters<SqliteConnection['execute']>[4],
  ): Promise<T> {
    await this.ensureConnection();
    let sql: string;
    if (typeof queryOrKnex === 'string') {
      sql = queryOrKnex;
    } else {
      ctx ??= (queryOrKnex as unknown as { client: { transacting?: boolean } }).client.transacting
        ? queryOrKnex
        : undefined;
      const compiled = queryOrKnex.toSQL();
      sql = compiled.sql;
      params = [...(compiled.bindings ?? [])];
    }
    sql = this.config.get('onQuery')(sql, params);
    const platform = this.platform as SqlitePlatform;
    const formatted = platform.formatQuery(sql, params);
    const bound = bindStrings(platform, sql, params);
    const logged = (this as unknown as QueryLogger).getSql(sql, formatted, loggerContext);
    return this.executeQuery(
      logged,
      async () => {
        const query = bound ? this.getKnex().raw(bound.sql, bound.bindings) : this.getKnex().raw(formatted);
        if (ctx) query.transacting(ctx as Knex.Transaction);
        const result: unknown = await query;
        return this.transformRawResult<T>(result, method);
      },
      { query: sql, params, ...loggerContext },
    );
  }
}

/** `SqliteDriver`, on `BoundSqliteConnection`. */
export class BoundSqliteDriver extends AbstractSqlDriver<BoundSqliteConnection, SqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new SqlitePlatform(), BoundSqliteConnection, ['knex', 'sqlite3']);
  }
}
