import { hostname } from 'node:os';
import { postgresServerOf, storeLocationOf } from '../../common/database';

export interface ReportStore {
  readonly kind: 'sqlite' | 'postgresql';
  readonly location: string;
  readonly judged_by_egress_policy: false;
  readonly shared_by_replicas: boolean;
  readonly datasets_dir: string;
  readonly keys_dir: string;
  readonly composed_on: string;
}

interface StorePaths {
  readonly databaseUrl?: string;
  readonly databaseFile: string;
  readonly datasetsDir: string;
  readonly keysDir: string;
}

/**
 * The daemon's own storage is the operator's configuration, outside the egress policy (docs/egress.md), so the report
 * names it for the auditor: the SQLite file, or the PostgreSQL server and database — never the URL's user or password.
 */
export function describeReportStore(config: StorePaths, node = hostname()): ReportStore {
  const location = storeLocationOf(config);
  const onPostgres = location.kind === 'postgresql';
  return {
    kind: location.kind,
    location: onPostgres ? postgresServerOf(location.url) : location.file,
    judged_by_egress_policy: false,
    shared_by_replicas: onPostgres,
    datasets_dir: config.datasetsDir,
    keys_dir: config.keysDir,
    composed_on: node,
  };
}
