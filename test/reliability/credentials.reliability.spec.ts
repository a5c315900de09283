import fc from 'fast-check';
import { KeyObject } from 'node:crypto';
import {
  generateApiKey,
  isWellFormedApiKey,
  looksLikeApiKey,
  parseApiKey,
} from '../../src/modules/api-keys/api-key-format';
import { LicenseRejectedError, verifyLicense } from '../../src/modules/licensing/license-verifier';
import { hubSignature, isValidHubSignature } from '../../src/modules/repohost/hub-signature';
import { generateSigningSecret, signedHeaders } from '../../src/modules/webhooks/webhook-signer';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/src/webhooks';
import { buildLicense, testSigningKey } from '../support/licenses';
import { checkProperty, expectTypedOutcome, runsOf } from './support/property';

const keyAlphabet = fc.constantFrom(...'abcXYZ019_-'.split(''), '_live_', '_test_', 'é', ' ', '\n');
const keyLike = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.array(keyAlphabet, { maxLength: 80 }).map((parts) => parts.join('')),
  fc
    .tuple(fc.stringMatching(/^[A-Za-z0-9]{1,32}$/), fc.constantFrom('live', 'test'), fc.nat())
    .map(([prefix, mode, cut]) => generateApiKey(prefix, mode).slice(0, 60 - (cut % 20))),
);

/** Random edits of a text: replaced, inserted and deleted characters. */
function edited(text: string): fc.Arbitrary<string> {
  const edit = fc.tuple(
    fc.nat(),
    fc.string({ minLength: 1, maxLength: 2 }),
    fc.constantFrom('set', 'insert', 'delete'),
  );
  return fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let out = text;
    for (const [at, value, kind] of edits) {
      const i = at % Math.max(1, out.length);
      out =
        kind === 'set'
          ? out.slice(0, i) + value + out.slice(i + 1)
          : kind === 'insert'
            ? out.slice(0, i) + value + out.slice(i)
            : out.slice(0, i) + out.slice(i + 1);
    }
    return out;
  });
}

describe('credential parsers and verifiers under fuzzing', () => {
  it('API-key parsing never throws, agrees with itself and round-trips generated keys', async () => {
    await checkProperty(
      fc.asyncProperty(keyLike, async (text) => {
        const { value: parsed } = await expectTypedOutcome(() => parseApiKey(text), []);
        expect(isWellFormedApiKey(text)).toBe(parsed !== undefined);
        if (parsed) {
          expect(looksLikeApiKey(text)).toBe(true);
          expect(`${parsed.prefix}_${parsed.mode}_${parsed.secret}`).toBe(text);
        }
      }),
    );
    const key = generateApiKey('acme');
    expect(parseApiKey(key)).toMatchObject({ prefix: 'acme', mode: 'live' });
  });

  it('the license verifier refuses every edited license with a LicenseRejectedError and accepts none', async () => {
    const signer = testSigningKey();
    const trusted: ReadonlyMap<string, KeyObject> = new Map([[signer.kid, signer.publicKey]]);
    const license = buildLicense();
    expect(verifyLicense(license, trusted).kid).toBe(signer.kid);
    const envelopeText = Buffer.from(license.split('\n').slice(1, -2).join(''), 'base64').toString('utf8');
    const rearmor = (envelope: string): string =>
      `-----BEGIN SERVICE LICENSE-----\n${Buffer.from(envelope).toString('base64')}\n-----END SERVICE LICENSE-----\n`;
    await checkProperty(
      fc.asyncProperty(
        fc.oneof(edited(license), edited(envelopeText).map(rearmor), fc.string({ maxLength: 300 })),
        async (text) => {
          const outcome = await expectTypedOutcome(
            () => verifyLicense(text, trusted),
            [LicenseRejectedError],
          );
          // An edit may only be harmless where it cannot reach signed bytes (whitespace around the armor).
          if (outcome.value) expect(outcome.value.id).toBe(verifyLicense(license, trusted).id);
        },
      ),
      runsOf(0.5),
    );
  });

  it('repository-host signatures: only the exact HMAC of the exact body holds, nothing throws', async () => {
    await checkProperty(
      fc.asyncProperty(
        fc.string({ minLength: 1 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ maxLength: 80 }),
        async (secret, body, noise) => {
          const raw = Buffer.from(body);
          const good = hubSignature(secret, raw);
          expect(isValidHubSignature(secret, raw, good)).toBe(true);
          expect(isValidHubSignature(secret, raw, good.toUpperCase().replace('SHA256=', 'sha256='))).toBe(
            true,
          );
          const { value } = await expectTypedOutcome(() => isValidHubSignature(secret, raw, noise), []);
          expect(value).toBe(false);
          expect(isValidHubSignature(secret, Buffer.concat([raw, Buffer.from('x')]), good)).toBe(false);
        },
      ),
    );
  });

  it('SDK webhook verification: only WebhookVerificationError for edited deliveries, the body for intact ones', async () => {
    const secret = generateSigningSecret();
    const now = new Date();
    await checkProperty(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom(
          'x-webhook-signature',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
          'body',
        ),
        fc.stringMatching(/^[A-Za-z0-9+/=,.]{1,20}$/),
        async (payload, target, noise) => {
          const body = JSON.stringify({ payload });
          const headers: Record<string, string> = signedHeaders({
            id: 'evt_1',
            timestamp: Math.floor(now.getTime() / 1000),
            event: 'webhook.test',
            body,
            secrets: { current: secret },
          });
          expect(verifyWebhook(secret, headers, body, { now })).toEqual({
            payload: JSON.parse(JSON.stringify(payload)),
          });
          const tampered = target === 'body' ? `${body}${noise}` : body;
          const tamperedHeaders =
            target === 'body' ? headers : { ...headers, [target]: `${headers[target]}${noise}` };
          const outcome = await expectTypedOutcome(
            () => verifyWebhook(secret, tamperedHeaders, tampered, { now }),
            [WebhookVerificationError],
          );
          expect(outcome.error).toBeInstanceOf(WebhookVerificationError);
        },
      ),
      runsOf(0.5),
    );
  });
});
