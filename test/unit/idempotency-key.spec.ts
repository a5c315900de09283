import { AppError } from '../../src/common/errors';
import { parseIdempotencyKey } from '../../src/modules/idempotency/idempotency-key';

function refusal(header: string): string {
  try {
    parseIdempotencyKey(header);
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}: ${error.message}`;
    throw error;
  }
  return 'accepted';
}

describe('parseIdempotencyKey', () => {
  it('reads a bare key and an RFC 8941 sf-string as the same key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"say \\"hi\\" \\\\ bye"')).toBe('say "hi" \\ bye');
    expect(parseIdempotencyKey('with inner space')).toBe('with inner space');
  });

  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(parseIdempotencyKey('x')).toBe('x');
    expect(parseIdempotencyKey('~'.repeat(255))).toHaveLength(255);
    expect(parseIdempotencyKey(`"${'a'.repeat(255)}"`)).toHaveLength(255);
  });

  it('refuses empty, over-long, non-printable and badly quoted keys with 400 invalid_idempotency_key', () => {
    expect(refusal('')).toBe(
      '400 invalid_idempotency_key: Idempotency-Key is empty: send 1 to 255 printable ASCII characters, e.g. a UUID.',
    );
    expect(refusal('""')).toMatch(/^400 invalid_idempotency_key: Idempotency-Key is empty/);
    expect(refusal('a'.repeat(256))).toMatch(/is 256 characters long, over the limit of 255/);
    expect(refusal(`"${'a'.repeat(256)}"`)).toMatch(/is 256 characters long/);
    expect(refusal('caf\u00e9')).toMatch(/not printable ASCII/);
    expect(refusal('tab\there')).toMatch(/not printable ASCII/);
    expect(refusal('"unterminated')).toMatch(/not a well-formed quoted string/);
    expect(refusal('"bad \\n escape"')).toMatch(/not a well-formed quoted string/);
    expect(refusal('"inner " quote"')).toMatch(/not a well-formed quoted string/);
    expect(() => parseIdempotencyKey(['a', 'b'])).toThrow(AppError);
  });
});
