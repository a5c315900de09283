import { EntitySchema } from '@mikro-orm/core';

const registered = new Set<EntitySchema>();

/** Entity schemas declared by domain modules (through DatabaseModule.forFeature) before the ORM starts. */
export function registerEntities(schemas: readonly EntitySchema[]): void {
  for (const schema of schemas) registered.add(schema);
}

export function registeredEntities(): EntitySchema[] {
  return [...registered];
}
