import { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';

/**
 * An entity's rows read without the ORM (a prepared statement on a hot path): its columns from the ORM's own
 * metadata, and a row turned into the entity as the ORM would have hydrated it. Plain columns only (strings,
 * numbers, Dates), so nothing about a property is guessed.
 */
export class EntityRows<T extends object> {
  private readonly columns: readonly { property: string; field: string; isDate: boolean }[];

  constructor(em: EntityManager, schema: EntitySchema<T>) {
    this.columns = em
      .getMetadata()
      .get<T>(schema.meta.className)
      .props.map((property) => {
        const runtime = property.runtimeType;
        if (!['string', 'number', 'Date'].includes(runtime))
          throw new Error(`EntityRows maps plain columns only, not ${property.name} (${runtime})`);
        return { property: property.name, field: property.fieldNames[0], isDate: runtime === 'Date' };
      });
  }

  get fields(): string {
    return this.columns.map((column) => column.field).join(', ');
  }

  /** A row as the ORM would have hydrated it: property names, and Dates (SQLite answers epoch milliseconds). */
  entityOf(row: Record<string, unknown>): T {
    const entity: Record<string, unknown> = {};
    for (const { property, field, isDate } of this.columns) {
      const value = row[field];
      entity[property] =
        isDate && value !== null && value !== undefined && !(value instanceof Date)
          ? new Date(value as number | string)
          : value;
    }
    return entity as T;
  }
}
