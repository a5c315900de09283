import type { EntityManager } from '@mikro-orm/knex';
import { dialectOf } from './dialect';

/**
 * One column of a batch update: each row's own value, in the order of the ids (`keepOnNull`: a row whose value is
 * null keeps what it holds), or SQL that is the same for every row.
 */
export type ColumnUpdate =
  | { readonly each: readonly unknown[]; readonly timestamp?: boolean; readonly keepOnNull?: boolean }
  | { readonly sql: string };

/** What `updateByIds` updates: rows of `table` by id, only where `guard` (SQL with `?` parameters) still holds. */
export interface BatchUpdate {
  readonly table: string;
  readonly ids: readonly string[];
  readonly set: Readonly<Record<string, ColumnUpdate>>;
  readonly guard: string;
  readonly guardParams: readonly unknown[];
}

/**
 * Updates a batch of rows, each with its own values, in one statement (`set c = case id when ? then ? … end`): on
 * SQLite every trip holds the one connection. Returns the ids the guard still let through. PostgreSQL types a CASE of literals as text, so a timestamp column's CASE is cast
 * there; on SQLite the connection inlines a Date as epoch milliseconds, as the ORM stores it.
 */
export async function updateByIds(em: EntityManager, update: BatchUpdate): Promise<Set<string>> {
  if (update.ids.length === 0) return new Set();
  const postgres = dialectOf(em.getPlatform()) === 'postgresql';
  const params: unknown[] = [];
  const assignments = Object.entries(update.set).map(([column, value]) => {
    if ('sql' in value) return `${column} = ${value.sql}`;
    const whens: string[] = [];
    update.ids.forEach((id, i) => {
      const each = value.each[i] ?? null;
      if (value.keepOnNull && each === null) return;
      params.push(id, each);
      whens.push('when ? then ?');
    });
    if (whens.length === 0) return `${column} = ${column}`;
    const chosen = `case id ${whens.join(' ')}${value.keepOnNull ? ` else ${column}` : ''} end`;
    return `${column} = ${value.timestamp && postgres ? `cast(${chosen} as timestamptz)` : chosen}`;
  });
  params.push(...update.ids, ...update.guardParams);
  const sql =
    `update ${update.table} set ${assignments.join(', ')} ` +
    `where id in (${update.ids.map(() => '?').join(', ')}) and ${update.guard} returning id`;
  const rows = await em.execute<{ id: string }[]>(sql, params, 'all');
  return new Set(rows.map((row) => row.id));
}
