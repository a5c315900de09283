import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  DecisionService,
  MemoryBindingStore,
  verifyWebhook,
  WebhookVerificationError,
  type JsonObject,
} from '../src/index';
import { startDaemon, type Daemon } from './support/daemon';
import { WebhookReceiver, type Delivery } from './support/receiver';

describe('verifyWebhook on real deliveries of the daemon', () => {
  let daemon: Daemon;
  let receiver: WebhookReceiver;
  let sdk: DecisionService;
  let secret: string;
  let testDelivery: Delivery;

  before(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    daemon = await startDaemon({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
    sdk = new DecisionService({
      apiKey: daemon.ownerKey,
      baseURL: daemon.baseURL,
      bindingStore: new MemoryBindingStore(),
    });
    secret = String((await sdk.webhooks.signingSecret()).signing_secret);
    assert.equal((await sdk.webhooks.test({ callback_url: receiver.url })).success, true);
    testDelivery = await receiver.next('webhook.test');
  });

  after(async () => {
    await daemon?.stop();
    await receiver?.stop();
  });

  it('accepts a genuine delivery and returns its parsed body', () => {
    const event = verifyWebhook<JsonObject>(secret, testDelivery.headers, testDelivery.body);
    assert.equal(event.event, 'webhook.test');
    const asFetchHeaders = new Headers(testDelivery.headers as Record<string, string>);
    assert.equal(
      verifyWebhook<JsonObject>(secret, asFetchHeaders, testDelivery.body.toString('utf8')).event,
      'webhook.test',
    );
  });

  it('refuses a changed body, a wrong secret, a stale timestamp and missing headers', () => {
    const { headers, body } = testDelivery;
    const changed = Buffer.from(body.toString('utf8').replace('webhook.test', 'webhook.tost'));
    assert.throws(() => verifyWebhook(secret, headers, changed), WebhookVerificationError);
    assert.throws(
      () => verifyWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, headers, body),
      /X-Webhook-Signature does not match/,
    );
    const later = new Date(Number(headers['webhook-timestamp']) * 1000 + 10 * 60 * 1000);
    assert.throws(
      () => verifyWebhook(secret, headers, body, { now: later }),
      /webhook-timestamp is 600 s away/,
    );
    assert.equal(
      verifyWebhook<JsonObject>(secret, headers, body, { now: later, toleranceSeconds: 900 }).event,
      'webhook.test',
    );
    const { 'webhook-signature': _standard, ...withoutStandard } = headers;
    assert.throws(() => verifyWebhook(secret, withoutStandard, body), /no webhook-signature header/);
    const { 'x-webhook-signature': _legacy, ...withoutLegacy } = headers;
    assert.throws(() => verifyWebhook(secret, withoutLegacy, body), /no X-Webhook-Signature/);
    const forged = { ...headers, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
    assert.throws(() => verifyWebhook(secret, forged, body), /webhook-signature does not match/);
    assert.throws(() => verifyWebhook('not-a-secret', headers, body), TypeError);
  });

  it('verifies a job.completed callback of a job', async () => {
    const job = await sdk.jobs.create({
      callback_url: receiver.url,
      request: {
        runs: 500,
        seed: 3,
        scenario: { variables: { gain: { low: 1, high: 2 } }, objective: 'maximize_net_value' },
      },
    });
    const delivery = await receiver.next('job.completed');
    const event = verifyWebhook<JsonObject>(secret, delivery.headers, delivery.body);
    assert.equal(event.job_id, job.job_id);
    assert.equal(event.status, 'succeeded');
  });

  it('during a rotation both the new and the previous secret verify', async () => {
    const rotated = await sdk.webhooks.rotateSigningSecret();
    const next = String(rotated.signing_secret);
    assert.notEqual(next, secret);
    receiver.deliveries.length = 0;
    await sdk.webhooks.test({ callback_url: receiver.url });
    const delivery = await receiver.next('webhook.test');
    assert.equal(verifyWebhook<JsonObject>(next, delivery.headers, delivery.body).event, 'webhook.test');
    assert.equal(verifyWebhook<JsonObject>(secret, delivery.headers, delivery.body).event, 'webhook.test');
  });
});
