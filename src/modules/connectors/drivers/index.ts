import { azureConnector } from './azure';
import { bigqueryConnector } from './bigquery';
import { bitbucketRepoConnector } from './bitbucket-repo';
import { clickhouseConnector } from './clickhouse';
import { elasticsearchConnector } from './elasticsearch';
import { fileConnector } from './file';
import { gcsConnector } from './gcs';
import { githubRepoConnector } from './github-repo';
import { gitlabRepoConnector } from './gitlab-repo';
import { localRepoConnector } from './local-repo';
import { mssqlConnector } from './mssql';
import { mysqlConnector } from './mysql';
import { neo4jConnector } from './neo4j';
import { postgresConnector } from './postgres';
import { redisConnector } from './redis';
import { redshiftConnector } from './redshift';
import { repoArchiveConnector } from './repo-archive';
import { restConnector } from './rest';
import { s3Connector } from './s3';
import { snowflakeConnector } from './snowflake';
import { sqliteConnector } from './sqlite';

/**
 * Every connector type, one registration line each, in the order `GET /v1/connectors/types` lists them (aliases
 * follow the canonical names). A new type is its drivers/<type>.ts descriptor plus one line here.
 */
export const CONNECTORS = [
  postgresConnector,
  mysqlConnector,
  mssqlConnector,
  sqliteConnector,
  clickhouseConnector,
  redshiftConnector,
  snowflakeConnector,
  bigqueryConnector,
  s3Connector,
  gcsConnector,
  azureConnector,
  restConnector,
  fileConnector,
  neo4jConnector,
  redisConnector,
  elasticsearchConnector,
  githubRepoConnector,
  gitlabRepoConnector,
  bitbucketRepoConnector,
  localRepoConnector,
  repoArchiveConnector,
] as const;
