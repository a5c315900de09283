import { OpenConfig, OpenConfigFields } from '../config-fields';
import { ConnectorDescriptor, ConnectorFamily, defineConnector, TypeAlias } from '../connector-descriptor';
import { ConnectorDriver } from '../connector-driver';
import { ConnectorError } from '../connector-error';

/** Types accepted and stored before a driver exists: the test says so and contacts nothing. */
function configCheckDriver(type: string): ConnectorDriver<OpenConfig> {
  const notImplemented = (): ConnectorError =>
    new ConnectorError(
      'not_implemented',
      `The ${type} configuration was accepted, but live ${type} connections are not implemented yet; nothing was contacted.`,
    );
  return {
    test: () => Promise.reject(notImplemented()),
    browse: () => Promise.reject(notImplemented()),
    readRows: () => ({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(notImplemented()) }),
    }),
  };
}

/** A type of the spec without a driver yet: its config is kept as given (fields the spec leaves open). */
export function configCheckConnector<const N extends string>(
  name: N,
  family: ConnectorFamily,
  aliases: readonly TypeAlias[] = [],
): ConnectorDescriptor<N, OpenConfig> {
  return defineConnector({
    name,
    family,
    aliases,
    config: OpenConfigFields,
    destinationFields: [],
    openConfig: true,
    driver: configCheckDriver(name),
  });
}
