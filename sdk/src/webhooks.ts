import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery whose signature, headers or timestamp do not check out: answer 400 and drop it. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from the receiver's clock, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock (tests). */
  now?: Date;
}

export const DEFAULT_WEBHOOK_TOLERANCE_S = 300;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[value.length - 1];
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError(`The delivery has no ${name} header.`);
  return value;
}

/**
 * Verifies a delivery of the service (job.completed, webhook.test, trigger events) against the organization's
 * signing secret (`whsec_...`) and returns its parsed body. Both signatures the service sends must hold:
 * `X-Webhook-Signature` (or `X-Webhook-Signature-Previous` during a rotation) and the Standard Webhooks
 * `webhook-id` / `webhook-timestamp` / `webhook-signature`, whose timestamp must be within the tolerance.
 * Pass the raw body bytes as received, not a re-serialised object.
 */
export function verifyWebhook<T = unknown>(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): T {
  if (typeof secret !== 'string' || !secret.startsWith('whsec_') || secret.length <= 'whsec_'.length) {
    throw new TypeError(
      'verifyWebhook: the secret must be the whsec_... signing secret of GET /v1/webhooks/signing-secret.',
    );
  }
  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);

  const legacy = `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')}`;
  const presented = [header(headers, 'x-webhook-signature'), header(headers, 'x-webhook-signature-previous')];
  if (presented.every((value) => value === undefined)) {
    throw new WebhookVerificationError('The delivery has no X-Webhook-Signature header.');
  }
  if (!presented.some((value) => value !== undefined && sameText(value.trim(), legacy))) {
    throw new WebhookVerificationError('X-Webhook-Signature does not match the body and secret.');
  }

  const id = required(headers, 'webhook-id');
  const timestamp = required(headers, 'webhook-timestamp');
  const signatures = required(headers, 'webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('webhook-timestamp is not Unix seconds.');
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_S;
  const skew = Math.abs((options.now ?? new Date()).getTime() / 1000 - Number(timestamp));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      `webhook-timestamp is ${Math.round(skew)} s away from now (tolerance ${tolerance} s).`,
    );
  }
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(raw).digest('base64')}`;
  if (!signatures.split(' ').some((entry) => sameText(entry, expected))) {
    throw new WebhookVerificationError('webhook-signature does not match the body and secret.');
  }

  try {
    return JSON.parse(raw.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('The delivery body is not JSON.');
  }
}
