import { request } from 'node:http';
import { HttpResult } from './http-result';

/**
 * One JSON request from a chosen loopback source address (any 127.x.y.z on Linux), so a test can play clients
 * on different machines against a daemon listening on 127.0.0.1.
 */
export function requestFrom<T = any>(
  baseUrl: string,
  sourceAddress: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string } = {},
): Promise<HttpResult<T>> {
  const url = new URL(path, baseUrl);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        localAddress: sourceAddress,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = text.length > 0 ? JSON.parse(text) : undefined;
          } catch {
            body = text;
          }
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          resolve({ status: res.statusCode ?? 0, headers, body: body as T, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
