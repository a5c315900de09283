import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { loadConfig } from '../../common/config';
import { ErrorBodyDto } from '../../common/openapi';
import { createLogger } from '../../common/logging';
import { AppModule } from '../../app.module';
import {
  ANY_OPERATION_ERRORS,
  errorCodesOf,
  errorExamples,
  errorResponse,
  errorResponses,
} from './error-responses';
import { collectRouteFacts, operationIdOf, RouteFacts } from './route-facts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const DESCRIPTION = [
  'The wire contract of the Decision Service appliance: every route of `/v1`, `/auth`, `/webhooks` and `/mcp`.',
  '',
  'Every protected route takes `Authorization: Bearer <API key or session token>` (or the legacy `X-API-Key`',
  'header with an API key). Every error answers the body `{"error": {"code", "message", "request_id",',
  '"details"?}}`; each operation lists the codes it can answer under the status they come with. Routes a license',
  'or a setting turns off are documented all the same: they answer `403 not_entitled` or `404 not_found`.',
  "Lists that can grow page by an opaque cursor: pass `limit` and the previous answer's `next_cursor` as",
  '`cursor`; `next_cursor` is null on the last page.',
].join('\n');

const IDEMPOTENCY_KEY_PARAMETER: JsonObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key and body within 24 h replay the first success (`Idempotent-Replayed: true`). ' +
    '1 to 255 printable ASCII characters, bare or as a quoted string. See docs/api.md, "Idempotency keys".',
  schema: { type: 'string', minLength: 1, maxLength: 257 },
  example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
};

/**
 * The OpenAPI 3.1 document of every route, built from the controllers and DTOs without starting anything: the
 * application graph is assembled in Nest's preview mode, which instantiates no provider.
 */
export async function buildOpenApiDocument(): Promise<JsonObject> {
  const config = loadConfig({ NODE_ENV: 'production', SERVICE_DATA_DIR: '/var/lib/decision-service' });
  const app = await NestFactory.create(
    AppModule.forRoot(config, createLogger('silent')),
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
      abortOnError: false,
    },
  );
  try {
    return describe(app);
  } finally {
    await app.close();
  }
}

/** The document as committed and served: keys sorted, two-space indent, one trailing newline. */
export function serializeDocument(document: JsonObject): string {
  return `${JSON.stringify(sortKeys(document), null, 2)}\n`;
}

function describe(app: INestApplication): JsonObject {
  const info = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Decision Service')
    .setVersion('1')
    .setDescription(DESCRIPTION)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API key or a session token from /auth/login.' },
      'bearer',
    )
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Legacy header; API keys only.' },
      'apiKeyHeader',
    )
    .addSecurityRequirements('bearer')
    .addSecurityRequirements('apiKeyHeader')
    .build();
  const document = SwaggerModule.createDocument(app, info, {
    operationIdFactory: operationIdOf,
    extraModels: [ErrorBodyDto],
  }) as unknown as JsonObject;
  const facts = collectRouteFacts(app);
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  for (const path of Object.keys(paths)) {
    for (const operation of Object.values(paths[path])) {
      const id = operation.operationId;
      const route = typeof id === 'string' ? facts.get(id) : undefined;
      if (typeof id !== 'string' || !route) throw new Error(`no route facts for an operation of ${path}`);
      completeOperation(operation, id, route);
    }
  }
  const components = document.components as JsonObject;
  const schemas = components.schemas as JsonObject;
  schemas.ErrorBody = schemas.ErrorBodyDto;
  delete schemas.ErrorBodyDto;
  components.examples = errorExamples() as JsonObject;
  delete document.servers;
  delete document.tags;
  return toOpenApi31(document) as JsonObject;
}

function completeOperation(operation: JsonObject, operationId: string, route: RouteFacts): void {
  const parameters = (operation.parameters ?? []) as JsonObject[];
  const codes = errorCodesOf(route, {
    hasBody: operation.requestBody !== undefined,
    hasQuery: parameters.some((p) => p.in === 'query'),
  });
  if (route.isIdempotent) operation.parameters = [...parameters, IDEMPOTENCY_KEY_PARAMETER];
  const responses = (operation.responses ?? {}) as JsonObject;
  operation.responses = {
    ...responses,
    ...(errorResponses(codes) as JsonObject),
    default: errorResponse(ANY_OPERATION_ERRORS) as JsonObject,
  };
  operation.tags = [operationId.split('_')[0]];
  if (route.isPublic) operation.security = [];
  if (route.role !== undefined) operation['x-required-role'] = route.role;
  if (route.entitlement !== undefined) operation['x-required-entitlement'] = route.entitlement;
}

/** @nestjs/swagger still writes OpenAPI 3.0's `nullable`; 3.1 says the same with a `null` type. */
function toOpenApi31(value: Json): Json {
  if (Array.isArray(value)) return value.map(toOpenApi31);
  if (value === null || typeof value !== 'object') return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) out[key] = toOpenApi31(child);
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    } else {
      const { description, ...schema } = out;
      return { ...(description === undefined ? {} : { description }), oneOf: [schema, { type: 'null' }] };
    }
  }
  return out;
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
