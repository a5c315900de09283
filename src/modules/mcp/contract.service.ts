import { Injectable, RequestMethod } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { IS_PUBLIC, REQUIRED_ROLE } from '../../common/auth/auth.decorators';
import { REQUIRED_ENTITLEMENT } from '../licensing/entitlement.decorator';
import { describeToolForContract } from './contract-tools';
import { McpTool } from './mcp-tool';

/** Nest's own metadata keys (`@nestjs/common/constants`), spelled out to keep to the package's public entry. */
const PATH_METADATA = 'path';
const METHOD_METADATA = 'method';
const ROUTE_ARGS_METADATA = '__routeArguments__';
const BODY_ARG_TYPE = 3;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- class-validator and Reflect take any class
type Class = abstract new (...args: any[]) => unknown;
type Handler = (...args: never[]) => unknown;

export interface RouteDescription {
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly isPublic: boolean;
  readonly role?: string;
  readonly entitlement?: string;
  readonly body?: Class;
}

const CONSTRAINT_TYPES: Readonly<Record<string, string>> = {
  isString: 'string',
  isInt: 'integer',
  isNumber: 'number',
  isBoolean: 'boolean',
  isArray: 'array',
  isObject: 'object',
  isIn: 'string',
  isEmail: 'string',
  isDateString: 'string',
  isISO8601: 'string',
};

function joinPath(prefix: string, path: string): string {
  const parts = [prefix, path].flatMap((p) => p.split('/')).filter((p) => p !== '');
  return `/${parts.map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p)).join('/')}`;
}

function humanize(controller: string, handler: string): string {
  const domain = controller
    .replace(/Controller$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  const action = handler.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `${domain}: ${action}`;
}

/** A JSON Schema of a class-validator request class: property names, simple types, required-ness. */
function bodySchema(dto: Class): Record<string, unknown> {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const properties: Record<string, Record<string, unknown>> = {};
  const optional = new Set<string>();
  for (const m of metadata) {
    properties[m.propertyName] ??= {};
    if (m.type === 'conditionalValidation') optional.add(m.propertyName);
    const constraint = m.name ?? (m.type === 'nestedValidation' ? 'isObject' : undefined);
    const type = constraint ? CONSTRAINT_TYPES[constraint] : undefined;
    if (type && properties[m.propertyName].type === undefined) properties[m.propertyName].type = type;
    if (constraint === 'isIn' && Array.isArray(m.constraints?.[0]))
      properties[m.propertyName].enum = m.constraints[0];
  }
  const required = Object.keys(properties).filter((p) => !optional.has(p));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** Generates the deployment's OpenAPI 3.1 document from the controllers Nest has registered. */
@Injectable()
export class ContractService {
  private routes: RouteDescription[] | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  listRoutes(): RouteDescription[] {
    this.routes ??= this.discover();
    return this.routes;
  }

  document(tools: readonly McpTool[]): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const route of this.listRoutes().filter((r) => r.path.startsWith('/v1'))) {
      const operation: Record<string, unknown> = {
        operationId: route.operationId,
        summary: humanize(...(route.operationId.split('.') as [string, string])),
        security: route.isPublic ? [] : [{ bearer: [] }, { apiKeyHeader: [] }],
        ...(route.role ? { 'x-required-role': route.role } : {}),
        ...(route.entitlement ? { 'x-required-entitlement': route.entitlement } : {}),
        ...(route.body
          ? {
              requestBody: {
                required: true,
                content: { 'application/json': { schema: bodySchema(route.body) } },
              },
            }
          : {}),
        parameters: [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
          name: m[1],
          in: 'path',
          required: true,
          schema: { type: 'string' },
        })),
        responses: {
          default: {
            description: 'Success, or an error body',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      };
      (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'Decision Service',
        version: '1',
        description:
          'Generated from the routes this daemon has registered. Errors: {error: {code, message, request_id, details?}}.',
      },
      paths,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'API key or session token' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
        schemas: {
          Error: {
            type: 'object',
            properties: {
              error: {
                type: 'object',
                properties: {
                  code: { type: 'string' },
                  message: { type: 'string' },
                  request_id: { type: 'string' },
                  details: { type: 'array', items: { type: 'object' } },
                },
                required: ['code', 'message'],
              },
            },
          },
        },
      },
      'x-mcp-tools': tools.map(describeToolForContract),
    };
  }

  private discover(): RouteDescription[] {
    const routes: RouteDescription[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      const type = wrapper.metatype as Class | null;
      if (!instance || !type) continue;
      const prefixes = ([] as string[]).concat(
        (Reflect.getMetadata(PATH_METADATA, type) as string | string[] | undefined) ?? '',
      );
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as Handler;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (method === undefined || paths === undefined) continue;
        const targets = [handler, type];
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<
          string,
          { index: number }
        >;
        const bodyArg = Object.entries(args).find(([key]) => key.split(':')[0] === String(BODY_ARG_TYPE));
        const paramTypes = (Reflect.getMetadata('design:paramtypes', prototype, name) ?? []) as Class[];
        const bodyType = bodyArg ? paramTypes[bodyArg[1].index] : undefined;
        for (const prefix of prefixes) {
          for (const path of ([] as string[]).concat(paths)) {
            routes.push({
              method: RequestMethod[method],
              path: joinPath(prefix, path),
              operationId: `${type.name}.${name}`,
              isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) === true,
              role: this.reflector.getAllAndOverride<string | undefined>(REQUIRED_ROLE, targets),
              entitlement: this.reflector.getAllAndOverride<string | undefined>(
                REQUIRED_ENTITLEMENT,
                targets,
              ),
              body: bodyType && (bodyType as unknown) !== Object ? bodyType : undefined,
            });
          }
        }
      }
    }
    return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  }
}
