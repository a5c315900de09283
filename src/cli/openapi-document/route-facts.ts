import { INestApplication, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { ErrorCode } from '../../common/errors';
import { API_ERRORS } from '../../common/openapi';
import { IS_PUBLIC, REQUIRED_ENTITLEMENT, REQUIRED_ROLE } from '../../common/auth/auth.decorators';
import { IDEMPOTENCY_ERROR_CODES, isIdempotentRoute } from '../../modules/idempotency/idempotency.types';

export interface RouteFacts {
  readonly isPublic: boolean;
  readonly role?: string;
  readonly entitlement?: string;
  readonly isIdempotent: boolean;
  readonly errors: readonly ErrorCode[];
  readonly queryType?: Type;
  readonly bodyType?: Type;
}

function argumentTypeOf(controller: Type, name: string, kind: RouteParamtypes): Type | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const argument = Object.entries(args).find(
    ([key, arg]) => key.split(':')[0] === String(kind) && arg.data === undefined,
  );
  if (!argument) return undefined;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, name) ??
    []) as Type[];
  const type = types[argument[1].index];
  return type === Object ? undefined : type;
}

export function operationIdOf(controllerKey: string, methodKey: string): string {
  return `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;
}

export function collectRouteFacts(app: INestApplication): Map<string, RouteFacts> {
  const reflector = new Reflector();
  const facts = new Map<string, RouteFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const targets = [handler as () => unknown, controller];
        facts.set(operationIdOf(controller.name, name), {
          isPublic: reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets) === true,
          role: reflector.getAllAndOverride<string | undefined>(REQUIRED_ROLE, targets),
          entitlement: reflector.getAllAndOverride<string | undefined>(REQUIRED_ENTITLEMENT, targets),
          isIdempotent: isIdempotentRoute(handler),
          errors: [
            ...reflector.getAllAndMerge<ErrorCode[]>(API_ERRORS, targets),
            ...(isIdempotentRoute(handler) ? IDEMPOTENCY_ERROR_CODES : []),
          ],
          queryType: argumentTypeOf(controller, name, RouteParamtypes.QUERY),
          bodyType: argumentTypeOf(controller, name, RouteParamtypes.BODY),
        });
      }
    }
  }
  return facts;
}
