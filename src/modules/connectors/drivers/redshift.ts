import { SSL_MODES, SqlServerFields, SslMode } from '../connector-config';
import { ConfigEnum, ConfigPort } from '../config-fields';
import { defineConnector } from '../connector-descriptor';
import { redshiftDriver } from './postgres';

const REDSHIFT_CLUSTER_HOST = /\.redshift(-serverless)?\.amazonaws\.com$/i;

/** Redshift speaks the PostgreSQL protocol; a cluster host defaults to Redshift's port 5439. */
export class RedshiftConnectorConfig extends SqlServerFields {
  @ConfigPort<SqlServerFields>({
    default: {
      shown: 5432,
      of: (config) =>
        config.connection_string?.trim()
          ? undefined
          : config.host !== undefined && REDSHIFT_CLUSTER_HOST.test(config.host)
            ? 5439
            : 5432,
    },
    description: '5439 for *.redshift.amazonaws.com hosts, else 5432.',
  })
  override port?: number = undefined;

  @ConfigEnum(SSL_MODES, { aliases: ['sslmode'], default: 'prefer' })
  ssl_mode?: SslMode;
}

export const redshiftConnector = defineConnector({
  name: 'redshift',
  family: 'sql',
  config: RedshiftConnectorConfig,
  destinationFields: ['host', 'port', 'connection_string', 'ssl_mode'],
  driver: redshiftDriver,
});
