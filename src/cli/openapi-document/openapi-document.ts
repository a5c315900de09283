import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { loadConfig } from '../../common/config';
import { contractComponents, ErrorBodyDto } from '../../common/openapi';
import { createLogger } from '../../common/logging';
import { AppModule } from '../../app.module';
import {
  ANY_OPERATION_ERRORS,
  errorCodesOf,
  errorExamples,
  errorResponse,
  errorResponses,
} from './error-responses';
import { operationDescription } from './operation-notes';
import { requestSchemas, validatedClasses } from './request-schemas';
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

/** Nest's preview mode assembles the graph without instantiating any provider. */
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
    extraModels: [ErrorBodyDto, ...validatedClasses(), ...contractComponents()],
  }) as unknown as JsonObject;
  const facts = collectRouteFacts(app);
  const roots = [...facts.values()].flatMap((f) => [f.queryType, f.bodyType].filter((t) => t !== undefined));
  const validated = requestSchemas(roots) as Record<string, JsonObject>;
  const components = document.components as JsonObject;
  const schemas = components.schemas as JsonObject;
  describeValidatedClasses(schemas, validated);
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  for (const path of Object.keys(paths)) {
    for (const [method, operation] of Object.entries(paths[path])) {
      const id = operation.operationId;
      const route = typeof id === 'string' ? facts.get(id) : undefined;
      if (typeof id !== 'string' || !route) throw new Error(`no route facts for an operation of ${path}`);
      completeOperation(operation, id, route, validated, method);
    }
  }
  schemas.ErrorBody = schemas.ErrorBodyDto;
  delete schemas.ErrorBodyDto;
  addReferencedSchemas(document, schemas, validated);
  pruneUnreferencedSchemas(document, schemas);
  components.examples = errorExamples() as JsonObject;
  delete document.servers;
  delete document.tags;
  return toOpenApi31(document) as JsonObject;
}

/** A class is described by its validation rules; a field's own @ApiProperty wins where a rule cannot say it. */
function describeValidatedClasses(schemas: JsonObject, validated: Record<string, JsonObject>): void {
  for (const [name, schema] of Object.entries(schemas as Record<string, JsonObject>)) {
    const rules = validated[name];
    if (!rules) continue;
    const ruleProperties = (rules.properties ?? {}) as JsonObject;
    const declared = (schema.properties ?? {}) as JsonObject;
    const required = [
      ...((rules.required ?? []) as string[]),
      ...((schema.required ?? []) as string[]).filter((p) => !(p in ruleProperties)),
    ];
    schemas[name] = {
      ...rules,
      ...schema,
      properties: { ...ruleProperties, ...declared },
      ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
    };
  }
}

function addReferencedSchemas(
  document: JsonObject,
  schemas: JsonObject,
  validated: Record<string, JsonObject>,
): void {
  for (;;) {
    const missing = [...referencedSchemaNames(document)].filter((name) => !(name in schemas));
    if (missing.length === 0) return;
    for (const name of missing) {
      if (!validated[name]) throw new Error(`the document refers to an undescribed schema ${name}`);
      schemas[name] = validated[name];
    }
  }
}

/** Validated classes no operation uses stay out of the document, unless marked @ContractComponent (MCP tool inputs). */
function pruneUnreferencedSchemas(document: JsonObject, schemas: JsonObject): void {
  const { components, ...rest } = document;
  const used = referencedSchemaNames(rest);
  for (const type of contractComponents()) used.add(type.name);
  for (let size = -1; size !== used.size;) {
    size = used.size;
    for (const name of [...used]) referencedSchemaNames(schemas[name] ?? null, used);
  }
  void components;
  for (const name of Object.keys(schemas)) if (!used.has(name) && name !== 'ErrorBody') delete schemas[name];
}

function referencedSchemaNames(value: Json, names = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => referencedSchemaNames(v, names));
  else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        names.add(child.slice('#/components/schemas/'.length));
      } else referencedSchemaNames(child, names);
    }
  }
  return names;
}

function queryParameters(schema: JsonObject): JsonObject[] {
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries((schema.properties ?? {}) as JsonObject).map(([name, property]) => {
    const { description, ...propertySchema } = property as JsonObject;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: propertySchema,
    };
  });
}

function completeOperation(
  operation: JsonObject,
  operationId: string,
  route: RouteFacts,
  validated: Record<string, JsonObject>,
  method: string,
): void {
  let parameters = (operation.parameters ?? []) as JsonObject[];
  if (route.queryType) {
    const schema = validated[route.queryType.name];
    if (!schema)
      throw new Error(`${operationId}: its query class ${route.queryType.name} has no validation rules`);
    parameters = [...parameters.filter((p) => p.in !== 'query'), ...queryParameters(schema)];
  }
  operation.parameters = parameters;
  const codes = errorCodesOf(route, {
    hasBody: operation.requestBody !== undefined,
    parsesBody: method !== 'get' && method !== 'head',
    hasQuery: parameters.some((p) => p.in === 'query'),
    pagesByCursor: parameters.some((p) => p.in === 'query' && p.name === 'cursor'),
  });
  if (route.isIdempotent) operation.parameters = [...parameters, IDEMPOTENCY_KEY_PARAMETER];
  const responses = (operation.responses ?? {}) as JsonObject;
  operation.responses = {
    ...responses,
    ...(errorResponses(codes) as JsonObject),
    default: errorResponse(ANY_OPERATION_ERRORS) as JsonObject,
  };
  const description = operationDescription(operation.description as string | undefined, route);
  if (description === undefined) delete operation.description;
  else operation.description = description;
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
