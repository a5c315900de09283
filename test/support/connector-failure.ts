import { ConnectorError } from '../../src/modules/connectors/connector-error';

/** The ConnectorError a driver or parser call is expected to end with; fails the test on success or another error. */
export async function connectorFailure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ConnectorError);
    return error as ConnectorError;
  }
  throw new Error('expected a ConnectorError');
}
