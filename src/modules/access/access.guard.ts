import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply } from 'fastify';
import { AppError } from '../../common/errors';
import { RouteMetadata } from '../../common/http';
import {
  IS_PUBLIC,
  OPERATOR_ADMIN_ONLY,
  REQUIRED_ROLE,
  RequestWithPrincipal,
} from '../../common/auth/auth.decorators';
import { requireOperatorAdmin, requireRole } from '../../common/auth/authorization';
import { Role } from '../../common/auth/principal';
import { CREDENTIAL_RESOLVER, CredentialResolver, PresentedCredential, Resolution } from './access.types';

export function presentedCredential(
  headers: RequestWithPrincipal['headers'],
): PresentedCredential | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match)
      throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <credential>".');
    return { value: match[1], scheme: 'bearer' };
  }
  const legacy = headers['x-api-key'];
  if (typeof legacy === 'string' && legacy.trim() !== '')
    return { value: legacy.trim(), scheme: 'x-api-key' };
  return undefined;
}

/** Global guard: every route needs a credential unless @Public(); roles via common/auth/authorization.ts. */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly isPublic: RouteMetadata<boolean>;
  private readonly requiredRole: RouteMetadata<Role>;
  private readonly operatorAdminOnly: RouteMetadata<string>;

  constructor(
    reflector: Reflector,
    @Inject(CREDENTIAL_RESOLVER) private readonly resolver: CredentialResolver,
  ) {
    this.isPublic = new RouteMetadata(reflector, IS_PUBLIC);
    this.requiredRole = new RouteMetadata(reflector, REQUIRED_ROLE);
    this.operatorAdminOnly = new RouteMetadata(reflector, OPERATOR_ADMIN_ONLY);
  }

  /** Returns synchronously when the credential resolves from memory, so the common case allocates no promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (this.isPublic.of(context)) return true;
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    const credential = presentedCredential(request.headers);
    if (!credential) throw new AppError('authentication_required');

    // The Fastify request is the RequestFacts: its `ip` getter runs only if device binding asks for it.
    const resolution = this.resolver.resolve(credential, request);
    if (resolution instanceof Promise)
      return resolution.then((resolved) => this.admit(context, request, resolved));
    return this.admit(context, request, resolution);
  }

  private admit(context: ExecutionContext, request: RequestWithPrincipal, resolution: Resolution): boolean {
    request.principal = resolution.principal;
    if (resolution.responseHeaders) {
      const reply = context.switchToHttp().getResponse<FastifyReply>();
      for (const [name, value] of Object.entries(resolution.responseHeaders)) void reply.header(name, value);
    }
    const required = this.requiredRole.of(context);
    if (required) requireRole(resolution.principal, required);
    const operatorAdminOnly = this.operatorAdminOnly.of(context);
    if (operatorAdminOnly !== undefined) requireOperatorAdmin(resolution.principal, operatorAdminOnly);
    return true;
  }
}
