import type { Platform } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';

export type Dialect = 'sqlite' | 'postgresql';

export function dialectOf(platform: Platform): Dialect {
  return platform instanceof PostgreSqlPlatform ? 'postgresql' : 'sqlite';
}
