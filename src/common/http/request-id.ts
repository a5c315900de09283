import { randomUUID } from 'node:crypto';
import { IncomingMessage } from 'node:http';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(request: IncomingMessage): string {
  const supplied = request.headers['x-request-id'];
  if (typeof supplied === 'string' && ACCEPTABLE_REQUEST_ID.test(supplied)) return supplied;
  return newRequestId();
}

export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, '')}`;
}
