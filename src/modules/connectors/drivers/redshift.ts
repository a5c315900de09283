import { sqlServerConfig } from '../connector-config';
import { defineConnector } from '../connector-descriptor';
import { redshiftDriver } from './postgres';

const REDSHIFT_CLUSTER_HOST = /\.redshift(-serverless)?\.amazonaws\.com$/i;

/** Redshift speaks the PostgreSQL protocol; a cluster host defaults to Redshift's port 5439. */
export const redshiftConnector = defineConnector({
  name: 'redshift',
  family: 'sql',
  normalize: sqlServerConfig(
    (host) => (host !== undefined && REDSHIFT_CLUSTER_HOST.test(host) ? 5439 : 5432),
    true,
  ),
  destinationFields: ['host', 'port', 'connection_string', 'ssl_mode'],
  driver: redshiftDriver,
});
