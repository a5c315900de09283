import { ERROR_CATALOGUE, ErrorCode } from '../../common/errors';
import { RouteFacts } from './route-facts';

/** Answers any operation can give (HTTP layer, disk, database), described once as the `default` response. */
export const ANY_OPERATION_ERRORS: readonly ErrorCode[] = [
  'malformed_request',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
  'internal_error',
  'store_unavailable',
  'insufficient_storage',
];

const CREDENTIAL_ERRORS: readonly ErrorCode[] = [
  'authentication_required',
  'invalid_api_key',
  'invalid_session',
  'rate_limited',
  'device_binding_required',
  'device_binding_token_required',
  'invalid_device_binding_token',
  'device_identity_mismatch',
  'device_limit_reached',
  'invalid_device_id',
];

const BODY_ERRORS: readonly ErrorCode[] = [
  'invalid_json',
  'payload_too_large',
  'unsupported_media_type',
  'validation_failed',
];

export interface OperationShape {
  readonly hasBody: boolean;
  readonly parsesBody: boolean;
  readonly hasQuery: boolean;
  readonly pagesByCursor: boolean;
}

export function errorCodesOf(facts: RouteFacts, shape: OperationShape): ErrorCode[] {
  const codes = new Set<ErrorCode>(facts.errors);
  if (!facts.isPublic) CREDENTIAL_ERRORS.forEach((c) => codes.add(c));
  if (facts.role !== undefined) codes.add('insufficient_role');
  if (facts.entitlement !== undefined) codes.add('not_entitled');
  // The body parsers run before any handler, so a route that reads no body still answers these.
  codes.add('unsupported_media_type');
  if (shape.hasBody || shape.parsesBody) BODY_ERRORS.forEach((c) => codes.add(c));
  if (shape.hasQuery) codes.add('validation_failed');
  if (shape.pagesByCursor) codes.add('invalid_cursor');
  // `default` is consulted only for a status the operation does not list, so a listed status gets these too.
  const listed = new Set(
    [...codes].filter((c) => !ANY_OPERATION_ERRORS.includes(c)).map((c) => ERROR_CATALOGUE[c].status),
  );
  ANY_OPERATION_ERRORS.forEach((c) =>
    listed.has(ERROR_CATALOGUE[c].status) ? codes.add(c) : codes.delete(c),
  );
  return [...codes];
}

export function errorExampleRef(code: ErrorCode): { $ref: string } {
  return { $ref: `#/components/examples/${code}` };
}

export function errorResponses(codes: readonly ErrorCode[]): Record<string, object> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, object> = {};
  for (const [status, statusCodes] of byStatus) {
    responses[String(status)] = errorResponse(statusCodes);
  }
  return responses;
}

export function errorResponse(codes: readonly ErrorCode[]): object {
  const sorted = [...codes].sort();
  return {
    description: sorted.join(', '),
    content: {
      'application/json': {
        schema: {
          allOf: [{ $ref: '#/components/schemas/ErrorBody' }],
          properties: { error: { properties: { code: { enum: sorted } } } },
        },
        examples: Object.fromEntries(sorted.map((c) => [c, errorExampleRef(c)])),
      },
    },
  };
}

export function errorExamples(): Record<string, object> {
  return Object.fromEntries(
    (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => [
      code,
      {
        summary: `${ERROR_CATALOGUE[code].status} ${code}`,
        value: {
          error: {
            code,
            message: ERROR_CATALOGUE[code].message,
            request_id: 'req_8f14e45fceea167a',
            ...(code === 'validation_failed'
              ? {
                  details: [
                    { field: 'label', problem: 'label must be shorter than or equal to 200 characters' },
                  ],
                }
              : {}),
          },
        },
      },
    ]),
  );
}
