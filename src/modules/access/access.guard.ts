import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { FastifyReply } from 'fastify';
import { AppError } from '../../common/errors';
import { IS_PUBLIC, REQUIRED_ROLE, RequestWithPrincipal } from './access.decorators';
import {
  CREDENTIAL_RESOLVER,
  CredentialResolver,
  PresentedCredential,
  RequestFacts,
  Resolution,
  Role,
  roleRank,
} from './principal';

export function presentedCredential(headers: RequestWithPrincipal['headers']): PresentedCredential | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <credential>".');
    return { value: match[1], scheme: 'bearer' };
  }
  const legacy = headers['x-api-key'];
  if (typeof legacy === 'string' && legacy.trim() !== '') return { value: legacy.trim(), scheme: 'x-api-key' };
  return undefined;
}

/** Global guard: every route needs a credential unless marked @Public(); roles come from @RequireRole(). */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(CREDENTIAL_RESOLVER) private readonly resolver: CredentialResolver,
  ) {}

  /** Returns synchronously when the credential resolves from memory, so the common case allocates no promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithPrincipal>();
    const credential = presentedCredential(request.headers);
    if (!credential) throw new AppError('authentication_required');

    const required = this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, targets);
    const admit = (resolution: Resolution): boolean => {
      request.principal = resolution.principal;
      if (resolution.responseHeaders) {
        const reply = http.getResponse<FastifyReply>();
        for (const [name, value] of Object.entries(resolution.responseHeaders)) void reply.header(name, value);
      }
      if (required && roleRank(resolution.principal.role) < roleRank(required)) {
        throw new AppError('insufficient_role', `This action needs the ${required} role or higher.`);
      }
      return true;
    };
    const resolution = this.resolver.resolve(credential, requestFacts(request));
    return resolution instanceof Promise ? resolution.then(admit) : admit(resolution);
  }
}

/** The address is read only if something asks (device binding): Fastify derives it from the socket each time. */
function requestFacts(request: RequestWithPrincipal): RequestFacts {
  return {
    get ip() {
      return request.ip;
    },
    headers: request.headers,
  };
}
