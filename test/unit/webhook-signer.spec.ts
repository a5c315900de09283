import { createHmac } from 'node:crypto';
import {
  bodySignature,
  generateSigningSecret,
  signedHeaders,
  standardSignature,
} from '../../src/modules/webhooks/webhook-signer';

describe('webhook signatures', () => {
  const body = '{"event":"webhook.test","org_id":"org_1"}';

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('signs the raw body keyed by the UTF-8 bytes of the whole secret string', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(bodySignature(secret, body)).toBe(`sha256=${expected}`);
  });

  it("signs with each secret's own key when keys are kept between signatures", () => {
    const secrets = Array.from({ length: 3 }, () => generateSigningSecret());
    for (const round of [1, 2]) {
      for (const secret of secrets) {
        const expected = createHmac('sha256', secret).update(`${round}${body}`).digest('hex');
        expect(bodySignature(secret, `${round}${body}`)).toBe(`sha256=${expected}`);
        const standard = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
          .update(`msg_${round}.1700000000.${body}`)
          .digest('base64');
        expect(standardSignature(secret, `msg_${round}`, 1700000000, body)).toBe(`v1,${standard}`);
      }
    }
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the Standard Webhooks specification's test suite.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
    const timestamp = 1614265330;
    const payload = '{"test": 2432232314}';
    expect(standardSignature(secret, id, timestamp, payload)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('carries both signatures during a rotation', () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const headers = signedHeaders({
      id: 'msg_1',
      timestamp: 1700000000,
      event: 'webhook.test',
      body,
      secrets: { current, previous },
    });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toEqual([
      standardSignature(current, 'msg_1', 1700000000, body),
      standardSignature(previous, 'msg_1', 1700000000, body),
    ]);
    expect(headers['x-webhook-signature']).toBe(bodySignature(current, body));
    expect(headers['x-webhook-signature-previous']).toBe(bodySignature(previous, body));
    expect(headers['x-webhook-event']).toBe('webhook.test');
    const single = signedHeaders({
      id: 'msg_1',
      timestamp: 1700000000,
      event: 'e',
      body,
      secrets: { current },
    });
    expect(single['webhook-signature'].split(' ')).toHaveLength(1);
    expect(single['x-webhook-signature-previous']).toBeUndefined();
  });
});
