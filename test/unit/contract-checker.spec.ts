import { contractProblems, expectMatchesContract, operationFor } from '../support/contract';

function answer(status: number, body: unknown, contentType = 'application/json; charset=utf-8') {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  return { status, headers: new Headers({ 'content-type': contentType }), body, text };
}

const KEY = {
  id: 'key_1',
  label: 'ci',
  key_prefix: 'dsk_live_abc',
  role: 'member',
  device_limit: 0,
  created_at: '2026-11-26T10:00:00.000Z',
  expires_at: null,
  last_used_at: null,
};

function error(code: string) {
  return { error: { code, message: 'm', request_id: 'req_1' } };
}

describe('expectMatchesContract: an answer against its operation in contract/openapi.json', () => {
  it('accepts an answer the contract describes', () => {
    expect(contractProblems(answer(200, { keys: [KEY] }), 'GET /v1/api-keys')).toEqual([]);
    expect(() => expectMatchesContract(answer(200, { keys: [] }), 'GET /v1/api-keys')).not.toThrow();
    expect(contractProblems(answer(401, error('invalid_api_key')), 'GET /v1/api-keys')).toEqual([]);
  });

  it('names a missing field, a wrong type and a value outside an enum', () => {
    const { key_prefix, ...withoutPrefix } = KEY;
    void key_prefix;
    const problems = contractProblems(
      answer(200, { keys: [withoutPrefix, { ...KEY, device_limit: '0', role: 'root' }] }),
      'GET /v1/api-keys',
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining("must have required property 'key_prefix'"),
        expect.stringMatching(/^\/keys\/1\/device_limit must be number/),
        expect.stringMatching(/^\/keys\/1\/role must be equal to one of the allowed values/),
      ]),
    );
    expect(() => expectMatchesContract(answer(200, { keys: [withoutPrefix] }), 'GET /v1/api-keys')).toThrow(
      /GET \/v1\/api-keys answered 200 outside the contract/,
    );
  });

  it('checks a date-time format and a null where none is allowed', () => {
    const problems = contractProblems(
      answer(200, { keys: [{ ...KEY, created_at: 'yesterday', label: null }] }),
      'GET /v1/api-keys',
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/keys\/0\/created_at must match format "date-time"/),
        expect.stringMatching(/^\/keys\/0\/label must be string/),
      ]),
    );
  });

  it('refuses an error code the operation does not list under that status', () => {
    expect(contractProblems(answer(401, error('invalid_credentials')), 'GET /v1/api-keys')).toEqual([
      expect.stringMatching(/^\/error\/code must be equal to one of the allowed values/),
    ]);
  });

  it('refuses an undocumented status and an undeclared content type', () => {
    expect(contractProblems(answer(202, { keys: [] }), 'GET /v1/api-keys')).toEqual([
      'status 202 is not documented',
    ]);
    expect(contractProblems(answer(500, error('internal_error')), 'GET /v1/api-keys')).toEqual([]);
    expect(contractProblems(answer(418, error('internal_error')), 'GET /v1/api-keys')).toEqual([
      'error internal_error belongs with status 500, not 418',
    ]);
    expect(contractProblems(answer(200, 'keys', 'text/plain'), 'GET /v1/api-keys')).toEqual([
      'content type "text/plain" is not one of application/json',
    ]);
  });

  it('refuses an operation the contract does not have, or a malformed name', () => {
    expect(() => contractProblems(answer(200, {}), 'GET /v1/api-key')).toThrow(
      /no operation GET \/v1\/api-key/,
    );
    expect(() => contractProblems(answer(200, {}), '/v1/api-keys')).toThrow(/is not "METHOD \/path"/);
  });
});

describe('operationFor: which documented operation a request reaches', () => {
  it('prefers a literal path, fills templates, ignores the query string and knows no other path', () => {
    expect(operationFor('get', '/v1/device/list')).toBe('GET /v1/device/list');
    expect(operationFor('DELETE', '/v1/device/dev_1')).toBe('DELETE /v1/device/{registrationId}');
    expect(operationFor('GET', '/v1/jobs?limit=2')).toBe('GET /v1/jobs');
    expect(operationFor('GET', '/v1/device/dev_1/extra')).toBeUndefined();
    expect(operationFor('PUT', '/v1/me')).toBeUndefined();
  });
});
