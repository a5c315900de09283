import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyBodyParser, FastifyRequest } from 'fastify';
import { AppError } from '../errors';
import { parseJsonBody } from './json-body';
import { exceedsJsonDepth } from './json-depth';
import { jsonHasNulEscape, nulInBodyError, nulInUrlError, urlHasNul } from './nul-character';

/** Routes that read non-JSON bodies themselves: uploads and signed inbound webhooks. */
export const ACCEPTS_ANY_BODY = { acceptsAnyBody: true } as const;

/** A `\uD800`–`\uDFFF` escape: the only way a JSON text can carry a lone surrogate (bytes decode to U+FFFD). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** A number JSON.parse may round to ±Infinity: an exponent of three digits or more, or 309 digits in a row. */
const HUGE_NUMBER = /[eE][+]?\d{3}|\d{309}/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE_PROBLEM =
  'contains a lone surrogate (\\uD800–\\uDFFF): text must be well-formed Unicode';
const NOT_FINITE_PROBLEM = 'is a number too large to represent (it reads as Infinity)';

/**
 * The first value JSON cannot carry faithfully: a lone UTF-16 surrogate (validators throw, PostgreSQL will not
 * store it) or a number that overflowed to ±Infinity (`1e999`).
 */
function unrepresentable(value: unknown, path = ''): { field: string; problem: string } | undefined {
  const field = path || 'body';
  if (typeof value === 'string')
    return LONE_SURROGATE.test(value) ? { field, problem: LONE_SURROGATE_PROBLEM } : undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : { field, problem: NOT_FINITE_PROBLEM };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unrepresentable(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === '' ? key : `${path}.${key}`;
    if (LONE_SURROGATE.test(key)) return { field: childPath, problem: LONE_SURROGATE_PROBLEM };
    const found = unrepresentable(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

function depthLimitedJsonParser(maxDepth: number): FastifyBodyParser<Buffer> {
  const parse = (text: string, done: (error: Error | null, value?: unknown) => void): void => {
    let value: unknown;
    try {
      value = parseJsonBody(text);
    } catch (error) {
      return done(error as Error, undefined);
    }
    done(null, value);
  };
  return (_request, body, done) => {
    if (exceedsJsonDepth(body, maxDepth)) {
      done(
        AppError.validation(
          [
            {
              field: 'body',
              problem: `nests objects and arrays deeper than ${maxDepth} levels (SERVICE_MAX_JSON_DEPTH)`,
            },
          ],
          `The JSON body nests objects and arrays deeper than the limit of ${maxDepth} levels.`,
        ),
        undefined,
      );
      return;
    }
    const text = body.toString();
    const hasNul = jsonHasNulEscape(body);
    if (!hasNul && !SURROGATE_ESCAPE.test(text) && !HUGE_NUMBER.test(text)) {
      parse(text, done);
      return;
    }
    parse(text, (error, parsed) => {
      if (error) return done(error, undefined);
      if (hasNul) return done(nulInBodyError(parsed), undefined);
      const found = unrepresentable(parsed);
      if (found === undefined) return done(null, parsed);
      done(AppError.validation([found]), undefined);
    });
  };
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  if (type === undefined) return false;
  const semicolon = type.indexOf(';');
  return (semicolon === -1 ? type : type.slice(0, semicolon)).trim().toLowerCase() === 'application/json';
}

/** JSON bodies get a nesting limit and no U+0000; other types get 415 unless ACCEPTS_ANY_BODY. Before app.init(). */
export function installBodyParsers(
  app: NestFastifyApplication,
  limits: { readonly maxBodyBytes: number; readonly maxJsonDepth: number },
): void {
  const fastify = app.getHttpAdapter().getInstance();
  app.useBodyParser(
    'application/json',
    { bodyLimit: limits.maxBodyBytes },
    depthLimitedJsonParser(limits.maxJsonDepth),
  );
  // %00 is tested on the raw target: the store would meet it in a path or query parameter after decoding.
  fastify.addHook('onRequest', (request, _reply, done) => {
    done(urlHasNul(request.url) ? nulInUrlError() : undefined);
  });
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const config = request.routeOptions.config as Partial<typeof ACCEPTS_ANY_BODY> | undefined;
    if (request.routeOptions.url === undefined || config?.acceptsAnyBody === true) return done(null, payload);
    if (hasBody(request) && !isJson(request)) {
      return done(
        new AppError(
          'unsupported_media_type',
          'The request body must be sent as Content-Type: application/json.',
        ),
      );
    }
    done(null, payload);
  });
}
