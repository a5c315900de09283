import { REDACTED, redactSecrets } from '../../src/common/logging';

describe('redactSecrets', () => {
  it('replaces secret-named fields at any depth and leaves the input alone', () => {
    const input = {
      headers: { authorization: 'Bearer abc', 'x-api-key': 'k', accept: 'json' },
      body: {
        password: 'hunter2hunter2',
        nested: [{ api_key: 'p', name: 'n' }],
        connection_string: 'pg://u:p@h',
      },
      count: 3,
    };
    expect(redactSecrets(input)).toEqual({
      headers: { authorization: REDACTED, 'x-api-key': REDACTED, accept: 'json' },
      body: { password: REDACTED, nested: [{ api_key: REDACTED, name: 'n' }], connection_string: REDACTED },
      count: 3,
    });
    expect(input.headers.authorization).toBe('Bearer abc');
  });
});
