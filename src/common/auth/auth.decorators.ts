import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { AppError } from '../errors';
import { Principal, Role } from './principal';

export const IS_PUBLIC = 'access:public';
export const REQUIRED_ROLE = 'access:role';

/** Opts a route out of the deny-by-default guard. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Minimum role for a route (viewer < member < admin < owner). */
export const RequireRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);

export type RequestWithPrincipal = FastifyRequest & { principal?: Principal };

export function principalOf(request: RequestWithPrincipal): Principal {
  if (!request.principal) throw new AppError('authentication_required');
  return request.principal;
}

/** The resolved caller of a protected route. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal =>
  principalOf(context.switchToHttp().getRequest<RequestWithPrincipal>()),
);
