import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CONTRACT_FILE } from '../../src/modules/contract/contract-file';
import { buildOpenApiDocument, serializeDocument } from '../../src/cli/openapi-document/openapi-document';
import {
  entitlementNote,
  IDEMPOTENCY_NOTE,
  PAGING_NOTE,
  roleNote,
} from '../../src/cli/openapi-document/operation-notes';

/** A schema that says more than "some JSON object": a reference, named properties, a map's values, or a scalar. */
function isTypedSchema(schema: any): boolean {
  if (schema === undefined || schema === null || Object.keys(schema).length === 0) return false;
  if (schema.$ref || schema.allOf || schema.oneOf || schema.anyOf) return true;
  if (schema.type === 'object')
    return schema.properties !== undefined || schema.additionalProperties !== undefined;
  if (schema.type === 'array') return isTypedSchema(schema.items);
  return schema.type !== undefined;
}

/**
 * A success answer is typed when each of its media types has a typed schema, or when it has no body and says so:
 * a 204, or a response with a description (@nestjs/swagger leaves the description of an undeclared answer empty).
 */
function hasTypedSuccess(operation: any): boolean {
  return Object.entries<any>(operation.responses).some(([status, response]) => {
    if (!/^[23]\d\d$/.test(status)) return false;
    if (response.content === undefined) return status === '204' || response.description !== '';
    return Object.values<any>(response.content).every((media) => isTypedSchema(media.schema));
  });
}

describe('the committed OpenAPI contract', () => {
  let generated: Record<string, any>;
  let committed: string;

  beforeAll(async () => {
    generated = await buildOpenApiDocument();
    committed = readFileSync(CONTRACT_FILE, 'utf8');
  });

  it('is what the controllers and DTOs generate now (else run `npm run openapi`)', () => {
    expect(committed).toBe(serializeDocument(generated));
  });

  it('is valid OpenAPI 3.1 for an independent validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committed));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every route group, public and protected, with both credential schemes', () => {
    const paths = Object.keys(generated.paths);
    for (const prefix of ['/v1/', '/auth/', '/webhooks/', '/mcp']) {
      expect([prefix, paths.some((p) => p.startsWith(prefix))]).toEqual([prefix, true]);
    }
    expect(generated.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    expect(generated.security).toEqual([{ bearer: [] }, { apiKeyHeader: [] }]);
    expect(generated.paths['/auth/login'].post.security).toEqual([]);
    expect(generated.paths['/v1/api-keys'].post.security).toBeUndefined();
  });

  it('lists the error codes each operation can answer under their status', () => {
    const create = generated.paths['/v1/connectors'].post;
    expect(create['x-required-role']).toBe('member');
    expect(create['x-required-entitlement']).toBe('connectors');
    const codes = (status: string): string[] =>
      create.responses[status].content['application/json'].schema.properties.error.properties.code.enum;
    expect(codes('401')).toEqual(expect.arrayContaining(['authentication_required', 'invalid_api_key']));
    expect(codes('403')).toEqual(expect.arrayContaining(['insufficient_role', 'not_entitled']));
    expect(codes('422')).toEqual(expect.arrayContaining(['validation_failed']));
    expect(codes('400')).toEqual(['invalid_idempotency_key', 'invalid_json', 'malformed_request']);
    const login = generated.paths['/auth/login'].post;
    const loginCodes =
      login.responses['401'].content['application/json'].schema.properties.error.properties.code.enum;
    expect(loginCodes).toEqual(['invalid_credentials']);
  });

  it('lists what the body parsers answer on routes that read no body: 415 everywhere, 400/413/422 but on GET', () => {
    // Found by the HTTP fuzz (test/reliability/http-fuzz.reliability.spec.ts): the parsers run before any handler.
    const codes = (operation: any, status: string): string[] | undefined =>
      operation.responses[status]?.content['application/json'].schema.properties.error.properties.code.enum;
    const me = generated.paths['/v1/me'].get;
    expect(codes(me, '415')).toEqual(['unsupported_media_type']);
    expect(codes(me, '400')).toBeUndefined();
    const deleteTrigger = generated.paths['/v1/triggers/{id}'].delete;
    expect(codes(deleteTrigger, '415')).toEqual(['unsupported_media_type']);
    expect(codes(deleteTrigger, '400')).toEqual(['invalid_json', 'malformed_request']);
    expect(codes(deleteTrigger, '413')).toEqual(['payload_too_large']);
    expect(codes(deleteTrigger, '422')).toContain('validation_failed');
    const inbound = generated.paths['/webhooks/repohost'].post;
    expect(codes(inbound, '415')).toEqual(['unsupported_media_type']);
    expect(codes(inbound, '400')).toContain('invalid_json');
  });

  it('lists an answer any operation can give under its status where the operation lists that status', () => {
    // `default` covers only statuses an operation does not list: a bad percent-encoding is a 400 on every route.
    const codes = (operation: any, status: string): string[] | undefined =>
      operation.responses[status]?.content['application/json'].schema.properties.error.properties.code.enum;
    expect(codes(generated.paths['/v1/triggers/{id}'].delete, '400')).toEqual([
      'invalid_json',
      'malformed_request',
    ]);
    expect(codes(generated.paths['/v1/me'].get, '400')).toBeUndefined();
    expect(codes(generated.paths['/v1/me'].get, 'default')).toContain('malformed_request');
  });

  it('lists Idempotency-Key and its errors on exactly the routes that honour it', () => {
    const withKey: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(generated.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if ((operation.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key' && p.in === 'header'))
          withKey.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(withKey.sort()).toEqual([
      'POST /v1/api-keys',
      'POST /v1/connectors',
      'POST /v1/data/connect',
      'POST /v1/jobs',
      'POST /v1/triggers',
      'POST /v1/triggers/{id}/fire',
    ]);
    const jobs = generated.paths['/v1/jobs'].post.responses;
    const codes = (status: string): string[] =>
      jobs[status].content['application/json'].schema.properties.error.properties.code.enum;
    expect(codes('400')).toContain('invalid_idempotency_key');
    expect(codes('409')).toContain('idempotency_key_in_use');
    expect(codes('422')).toContain('idempotency_key_reused');
  });

  it('describes request bodies and query strings by their validation rules, nested objects included', () => {
    const schemas = generated.components.schemas;
    expect(generated.paths['/v1/jobs'].get.parameters).toEqual([
      { in: 'query', name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 500 } },
      { in: 'query', name: 'cursor', required: false, schema: { type: 'string', maxLength: 256 } },
    ]);
    expect(schemas.CreateApiKeyDto.properties.label).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: 200,
    });
    expect(schemas.CreateApiKeyDto.required).toEqual(['label']);
    expect(schemas.SimulateRequest.properties.scenario).toEqual({ $ref: '#/components/schemas/ScenarioDto' });
    expect(schemas.ScenarioDto.properties.variables.additionalProperties).toEqual({
      oneOf: [
        { $ref: '#/components/schemas/RangeDto' },
        { $ref: '#/components/schemas/ParamsVariableDto' },
        { $ref: '#/components/schemas/EmpiricalVariableDto' },
        { $ref: '#/components/schemas/DataVariableDto' },
      ],
    });
    expect(schemas.RangeDto.required).toEqual(['low', 'high']);
    // A field that may be sent as null to clear it (the Nullable rule) is its type or null.
    expect(schemas.UpdateTriggerDto.properties.webhook_url).toEqual({ type: ['string', 'null'] });
    expect(schemas.UpdateTriggerDto.properties.schedule).toEqual({
      oneOf: [{ $ref: '#/components/schemas/ScheduleDto' }, { type: 'null' }],
    });
    expect(schemas.ConditionSourceDto.required).toEqual(['kind']);
    const bare: string[] = [];
    for (const [name, schema] of Object.entries<any>(schemas)) {
      for (const [property, value] of Object.entries<any>(schema.properties ?? {})) {
        const isBareObject =
          value.type === 'object' && !value.$ref && !value.properties && !value.additionalProperties;
        if (isBareObject || Object.keys(value).length === 0) bare.push(`${name}.${property}`);
      }
    }
    expect(bare).toEqual([]);
  });

  it('gives every operation a summary of its own, and the shared notes where they hold', () => {
    const missing: string[] = [];
    const bySummary = new Map<string, string[]>();
    for (const [path, operations] of Object.entries<Record<string, any>>(generated.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        const name = `${method.toUpperCase()} ${path}`;
        const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
        if (summary === '') missing.push(name);
        else bySummary.set(summary, [...(bySummary.get(summary) ?? []), name]);
      }
    }
    expect(missing).toEqual([]);
    expect([...bySummary.values()].filter((names) => names.length > 1)).toEqual([]);
    const jobs = generated.paths['/v1/jobs'];
    expect(jobs.get.description).toContain(PAGING_NOTE);
    expect(jobs.post.description).toContain(IDEMPOTENCY_NOTE);
    expect(jobs.post.description).toContain(roleNote('member'));
    expect(jobs.post.description).toContain(entitlementNote('jobs'));
    expect(generated.paths['/mcp'].delete.summary).toBe('End an MCP session (Streamable HTTP)');
    expect(generated.paths['/v1/me'].get.description).toBeUndefined();
  });

  it('types the success answer of every operation: none answers only the generic error', () => {
    const genericOnly: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(generated.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if (!hasTypedSuccess(operation)) genericOnly.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(genericOnly).toEqual([]);
  });
});
