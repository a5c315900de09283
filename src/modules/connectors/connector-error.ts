/**
 * The documented `error_type` values of failed connector tests and reads (docs/connectors.md). `recoverable` says
 * whether fixing the input or credentials and retrying can help.
 */
export const CONNECTOR_ERROR_TYPES = {
  egress_blocked: false,
  auth_failed: true,
  unreachable: true,
  not_found: true,
  invalid_config: true,
  invalid_payload: true,
  path_not_allowed: true,
  unsafe_archive: true,
  timeout: true,
  remote_error: true,
  pagination_error: true,
  not_implemented: false,
  driver_error: false,
} as const satisfies Record<string, boolean>;

export type ConnectorErrorType = keyof typeof CONNECTOR_ERROR_TYPES;

export class ConnectorError extends Error {
  readonly recoverable: boolean;

  constructor(
    readonly errorType: ConnectorErrorType,
    message: string,
    recoverable?: boolean,
  ) {
    super(message);
    this.name = 'ConnectorError';
    this.recoverable = recoverable ?? CONNECTOR_ERROR_TYPES[errorType];
  }
}
