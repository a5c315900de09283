import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { FetchFunction } from './options';

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;

/**
 * The PEM certificates in `caFile`: the appliance's own certificate or the CA that signed it. A file that cannot be
 * read or holds no certificate is refused here, naming it, rather than failing every request later.
 */
export function readCaFile(caFile: string, source: string): string {
  let pem: string;
  try {
    pem = readFileSync(caFile, 'utf8');
  } catch (error) {
    throw new TypeError(
      `DecisionService: the CA file from ${source} (${caFile}) cannot be read: ${(error as Error).message}`,
    );
  }
  if (!PEM_CERTIFICATE.test(pem)) {
    throw new TypeError(`DecisionService: the CA file from ${source} (${caFile}) holds no PEM certificate.`);
  }
  return pem;
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

/**
 * A fetch for https URLs that trusts exactly the certificates given (and verifies host names as always); the
 * global fetch cannot take a CA without a dependency. Plain http URLs go to the global fetch.
 */
export function fetchTrusting(caPem: string): FetchFunction {
  return (input, init = {}) => {
    const url = new URL(String(input));
    if (url.protocol !== 'https:') return globalThis.fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(new Headers(init.headers).entries()),
          ca: caPem,
          signal: init.signal ?? undefined,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const status = incoming.statusCode ?? 502;
            const body = NULL_BODY_STATUSES.has(status) ? null : Buffer.concat(chunks);
            resolve(
              new Response(body, {
                status,
                statusText: incoming.statusMessage,
                headers: headersOf(incoming.headers),
              }),
            );
          });
        },
      );
      outgoing.on('error', reject);
      if (init.body !== undefined && init.body !== null) outgoing.write(init.body as string | Uint8Array);
      outgoing.end();
    });
  };
}
