import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { FastifyReply } from 'fastify';
import { catchError, defer, finalize, from, mergeMap, Observable, of } from 'rxjs';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { principalOf, RequestWithPrincipal } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from './idempotency-key';
import { IDEMPOTENCY_LEASE_MS, IdempotencyClaim, IdempotencyService } from './idempotency.service';
import { findCreatedOf, IdempotentRetry, setIdempotencyOperation } from './idempotent-route';

export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
const RENEW_EVERY_MS = IDEMPOTENCY_LEASE_MS / 4;

function callerOf(principal: Principal): string {
  if (principal.keyId) return `key:${principal.keyId}`;
  if (principal.userId) return `user:${principal.userId}`;
  return `org:${principal.orgId}`;
}

// The claim is taken before validation and the answer stored before it is sent; a handler records the claim's
// operation id under a unique index so a retry after a crash finds what it created (`FindCreated`).
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithPrincipal>();
    const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER]);
    if (key === undefined) return next.handle();
    const principal = principalOf(request);
    const reply = http.getResponse<FastifyReply>();
    return defer(() =>
      this.idempotency.begin({
        orgId: principal.orgId,
        key,
        method: request.method,
        route: request.routeOptions.url ?? request.url,
        caller: callerOf(principal),
        body: request.body,
      }),
    ).pipe(
      mergeMap((outcome) => {
        if (outcome.kind === 'replay') return of(this.replayed(reply, outcome.body));
        const { claim } = outcome;
        setIdempotencyOperation(request, claim.operationId);
        const retry: IdempotentRetry = {
          principal,
          params: (request.params ?? {}) as Record<string, string>,
          operationId: claim.operationId,
        };
        const run = () => this.runOnce(claim, next, reply, () => this.findCreated(context, retry));
        if (!outcome.resumed) return run();
        return from(this.findCreated(context, retry)).pipe(
          catchError((error: unknown) => from(this.releaseAndThrow(claim, error))),
          mergeMap((found) => (found === undefined ? run() : from(this.answerCreated(claim, reply, found)))),
        );
      }),
    );
  }

  private runOnce(
    claim: IdempotencyClaim,
    next: CallHandler,
    reply: FastifyReply,
    findCreated: () => Promise<unknown>,
  ): Observable<unknown> {
    const renewal = setInterval(() => {
      this.idempotency.renew(claim).catch((error: unknown) => {
        this.logger.error(
          { event: 'idempotency_renew_failed', err: error },
          'could not renew an idempotency claim',
        );
      });
    }, RENEW_EVERY_MS);
    renewal.unref();
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        await this.idempotency.complete(claim, reply.statusCode, body);
        return body;
      }),
      catchError((error: unknown) => from(this.afterFailure(claim, reply, error, findCreated))),
      finalize(() => clearInterval(renewal)),
    );
  }

  /** A run that failed releases the key, unless it lost to an earlier run of the same request: then that answers. */
  private async afterFailure(
    claim: IdempotencyClaim,
    reply: FastifyReply,
    error: unknown,
    findCreated: () => Promise<unknown>,
  ): Promise<unknown> {
    if (error instanceof UniqueConstraintViolationException) {
      const found = await findCreated().catch(() => undefined);
      if (found !== undefined) return this.answerCreated(claim, reply, found);
    }
    return this.releaseAndThrow(claim, error);
  }

  private async releaseAndThrow(claim: IdempotencyClaim, error: unknown): Promise<never> {
    await this.idempotency.release(claim);
    throw error;
  }

  private async answerCreated(
    claim: IdempotencyClaim,
    reply: FastifyReply,
    found: unknown,
  ): Promise<unknown> {
    await this.idempotency.complete(claim, reply.statusCode, found);
    return this.replayed(reply, found);
  }

  private replayed(reply: FastifyReply, body: unknown): unknown {
    void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    return body;
  }

  private findCreated(context: ExecutionContext, retry: IdempotentRetry): Promise<unknown> {
    const find = findCreatedOf(context.getHandler());
    if (!find) throw new Error('an idempotent route without FindCreated');
    const controller: unknown = this.moduleRef.get(context.getClass(), { strict: false });
    return find(controller, retry);
  }
}
