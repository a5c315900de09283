import { createHmac, timingSafeEqual } from 'node:crypto';

const SIGNATURE_FORMAT = /^sha256=([0-9a-f]{64})$/i;

export function isValidHubSignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  const match = SIGNATURE_FORMAT.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  const presented = Buffer.from(match[1], 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

export function hubSignature(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}
