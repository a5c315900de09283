/**
 * Every error code the service answers with, its HTTP status and default message (DESIGN.md §3).
 * The code type is derived from the keys, so a typo does not compile and a duplicate cannot exist.
 */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  malformed_request: { status: 400, message: 'The request is not well-formed HTTP.' },
  cannot_revoke_last_key: {
    status: 400,
    message: 'The last active API key of an organization cannot be revoked.',
  },
  invalid_token: { status: 400, message: 'The token is invalid, expired or already used.' },
  invalid_idempotency_key: {
    status: 400,
    message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
  },
  authentication_required: {
    status: 401,
    message: 'A credential is required: send Authorization: Bearer <key>.',
  },
  invalid_api_key: { status: 401, message: 'The API key is invalid, expired or revoked.' },
  invalid_session: { status: 401, message: 'The session token is invalid or expired.' },
  invalid_credentials: { status: 401, message: 'The e-mail address or password is wrong.' },
  invalid_signature: { status: 401, message: 'The request signature is missing or does not match.' },
  device_binding_required: { status: 401, message: 'This key is device-bound: send X-Service-Device-Id.' },
  device_binding_token_required: {
    status: 401,
    message: 'This device is already bound: replay X-Service-Device-Binding-Token.',
  },
  device_limit_reached: { status: 402, message: 'All device slots are in use.' },
  insufficient_role: { status: 403, message: 'Your role does not allow this action.' },
  forbidden: { status: 403, message: 'This action is not allowed for this credential.' },
  signup_disabled: { status: 403, message: 'Sign-up is disabled on this appliance.' },
  not_entitled: { status: 403, message: 'The license does not include this feature.' },
  device_identity_mismatch: {
    status: 403,
    message: 'The device id is already bound to a different machine.',
  },
  invalid_device_binding_token: { status: 403, message: 'The device binding token does not match.' },
  origin_not_allowed: { status: 403, message: 'Requests from this Origin are not allowed.' },
  not_found: { status: 404, message: 'The resource was not found.' },
  api_key_not_found: { status: 404, message: 'The API key was not found.' },
  device_not_found: { status: 404, message: 'No device registration with this id in your organization.' },
  dataset_not_found: { status: 404, message: 'The dataset was not found.' },
  provider_key_not_found: { status: 404, message: 'No provider key is stored for this backend.' },
  method_not_allowed: { status: 405, message: 'The method is not allowed on this resource.' },
  not_acceptable: {
    status: 406,
    message: 'The Accept header does not list a type this resource answers with.',
  },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  email_taken: { status: 409, message: 'An account with this e-mail address already exists.' },
  encryption_key_required: {
    status: 409,
    message: 'SERVICE_CONFIG_ENCRYPTION_KEY must be configured to store provider keys.',
  },
  not_connected: { status: 409, message: 'The connector is not live: test it successfully first.' },
  conflict: { status: 409, message: 'The request conflicts with the current state of the resource.' },
  dataset_not_converted: {
    status: 409,
    message:
      'The dataset version is still in the previous SQLite format (its conversion to DuckDB failed): SQL reports need the converted file.',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed: retry later.',
  },
  payload_too_large: { status: 413, message: 'The request body is larger than the configured limit.' },
  uri_too_long: { status: 414, message: 'A path segment of the request URL is too long.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  validation_failed: { status: 422, message: 'The request is invalid.' },
  correlation_matrix_invalid: {
    status: 422,
    message: 'The rank correlations do not form a valid (positive semi-definite) correlation matrix.',
  },
  invalid_cursor: {
    status: 422,
    message: 'The cursor was not returned by this list: pass the next_cursor of its previous page.',
  },
  result_too_large: {
    status: 422,
    message: 'The result is larger than the configured limit: narrow the query.',
  },
  insufficient_data: {
    status: 422,
    message: 'The column has fewer non-null values than a fit or a sample needs (10).',
  },
  column_not_numeric: { status: 422, message: 'The column does not hold numbers.' },
  invalid_type: { status: 422, message: 'Unknown connector type.' },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request: use a new key.',
  },
  invalid_device_id: { status: 422, message: 'X-Service-Device-Id must be 16 to 64 characters.' },
  query_not_understood: { status: 422, message: 'The query could not be resolved unambiguously.' },
  read_only_violation: { status: 422, message: 'Only one read-only SELECT statement is allowed.' },
  runtime_execution_failed: { status: 422, message: 'The runtime library refused or failed the call.' },
  rate_limited: { status: 429, message: 'Too many requests: retry later.' },
  headers_too_large: { status: 431, message: 'The request headers are larger than the server accepts.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  connector_failed: { status: 502, message: 'The connector source failed; details name the error_type.' },
  engine_unavailable: { status: 503, message: 'The simulation engine is unavailable.' },
  engine_busy: { status: 503, message: 'All engine workers are busy: retry later.' },
  runtime_unavailable: {
    status: 503,
    message: 'The local runtime-library daemon is not reachable: start the local runtime.',
  },
  store_unavailable: {
    status: 503,
    message: 'The database is not reachable right now: retry later.',
  },
  mcp_session_limit_reached: { status: 503, message: 'Too many MCP sessions are open: retry later.' },
  runtime_timeout: { status: 504, message: 'The runtime-library daemon did not answer in time.' },
  engine_timeout: { status: 504, message: 'The computation exceeded its time budget.' },
  query_timeout: { status: 504, message: 'The query exceeded its time budget.' },
  query_too_expensive: {
    status: 422,
    message: 'The query needs more memory than the daemon grants one query (SERVICE_QUERY_MEMORY_MB).',
  },
  insufficient_storage: {
    status: 507,
    message: 'The appliance or the organization has no storage left for this.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
