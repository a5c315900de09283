import { DriverRegistry } from '../connector-driver';
import { azureDriver } from './azure';
import { bigqueryDriver } from './bigquery';
import { clickhouseDriver } from './clickhouse';
import { configCheckDriver } from './config-check';
import { fileDriver } from './file';
import { gcsDriver } from './gcs';
import { mssqlDriver } from './mssql';
import { mysqlDriver } from './mysql';
import { postgresDriver, redshiftDriver } from './postgres';
import { restDriver } from './rest';
import { s3Driver } from './s3';
import { snowflakeDriver } from './snowflake';
import { sqliteDriver } from './sqlite';

/** One driver per canonical type. */
export const DRIVERS: DriverRegistry = {
  postgres: postgresDriver,
  redshift: redshiftDriver,
  mysql: mysqlDriver,
  mssql: mssqlDriver,
  sqlite: sqliteDriver,
  clickhouse: clickhouseDriver,
  snowflake: snowflakeDriver,
  bigquery: bigqueryDriver,
  s3: s3Driver,
  gcs: gcsDriver,
  azure: azureDriver,
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
