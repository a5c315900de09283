import type { Platform } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';

/** The two stores the daemon runs on: the bundled SQLite file, or PostgreSQL shared by several replicas. */
export type Dialect = 'sqlite' | 'postgresql';

export function dialectOf(platform: Platform): Dialect {
  return platform instanceof PostgreSqlPlatform ? 'postgresql' : 'sqlite';
}
