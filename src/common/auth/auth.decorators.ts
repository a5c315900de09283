import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { AppError } from '../errors';
import { Entitlement } from './entitlements';
import { Principal, Role } from './principal';

export const IS_PUBLIC = 'access:public';
export const REQUIRED_ROLE = 'access:role';
export const REQUIRED_ENTITLEMENT = 'licensing:entitlement';
export const OPERATOR_ADMIN_ONLY = 'access:operator-admin';

export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

export const RequireRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

/** 403 insufficient_role below admin; 403 forbidden with `message` outside the operator organization. */
export const RequireOperatorAdmin = (message: string): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(REQUIRED_ROLE, 'admin'), SetMetadata(OPERATOR_ADMIN_ONLY, message));

export const RequireEntitlement = (entitlement: Entitlement): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ENTITLEMENT, entitlement);

export type RequestWithPrincipal = FastifyRequest & { principal?: Principal };

export function principalOf(request: RequestWithPrincipal): Principal {
  if (!request.principal) throw new AppError('authentication_required');
  return request.principal;
}

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal =>
  principalOf(context.switchToHttp().getRequest<RequestWithPrincipal>()),
);
