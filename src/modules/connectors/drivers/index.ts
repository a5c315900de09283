import { ConnectorConfigMap } from '../connector-config';
import { ConnectorDriver, DriverRegistry } from '../connector-driver';
import { ConnectorType } from '../connector-types';
import { configCheckDriver } from './config-check';
import { fileDriver } from './file';
import { mysqlDriver } from './mysql';
import { postgresDriver, redshiftDriver } from './postgres';
import { restDriver } from './rest';
import { s3Driver } from './s3';
import { sqliteDriver } from './sqlite';

const pending = <C>(type: string): ConnectorDriver<C> =>
  configCheckDriver(type) as unknown as ConnectorDriver<C>;

/** One driver per canonical type. */
export const DRIVERS: DriverRegistry = {
  postgres: postgresDriver,
  redshift: redshiftDriver,
  mysql: mysqlDriver,
  mssql: pending('mssql'),
  sqlite: sqliteDriver,
  clickhouse: pending('clickhouse'),
  snowflake: pending('snowflake'),
  bigquery: pending('bigquery'),
  s3: s3Driver,
  gcs: pending('gcs'),
  azure: pending('azure'),
  rest: restDriver,
  file: fileDriver,
  neo4j: configCheckDriver('neo4j'),
  redis: configCheckDriver('redis'),
  elasticsearch: configCheckDriver('elasticsearch'),
  github_repo: configCheckDriver('github_repo'),
  gitlab_repo: configCheckDriver('gitlab_repo'),
  bitbucket_repo: configCheckDriver('bitbucket_repo'),
  local_repo: configCheckDriver('local_repo'),
  repo_archive: configCheckDriver('repo_archive'),
};

/** The driver of a type, typed for that type's config. */
export function driverFor<K extends ConnectorType>(type: K): ConnectorDriver<ConnectorConfigMap[K]> {
  return DRIVERS[type];
}
