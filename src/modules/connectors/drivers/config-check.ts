import { OpenConfig } from '../connector-config';
import { ConnectorDriver } from '../connector-driver';
import { ConnectorError } from '../connector-error';

/** Types accepted and stored before a driver exists: the test says so and contacts nothing. */
export function configCheckDriver(type: string): ConnectorDriver<OpenConfig> {
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
