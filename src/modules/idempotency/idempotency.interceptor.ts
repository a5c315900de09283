import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { FastifyReply } from 'fastify';
import { catchError, defer, finalize, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { principalOf, RequestWithPrincipal } from '../../common/auth/auth.decorators';
import { Principal } from '../../common/auth/principal';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from './idempotency-key';
import { IDEMPOTENCY_LEASE_MS, IdempotencyClaim, IdempotencyService } from './idempotency.service';

/** Set on an answer that is the stored first answer of an earlier request with the same Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
const RENEW_EVERY_MS = IDEMPOTENCY_LEASE_MS / 4;

function callerOf(principal: Principal): string {
  if (principal.keyId) return `key:${principal.keyId}`;
  if (principal.userId) return `user:${principal.userId}`;
  return `org:${principal.orgId}`;
}

/**
 * Runs after the guards (so the caller and its organization are known) and around the validation pipe and the
 * handler: the claim is taken before the body is validated, and an error anywhere inside releases it. The answer is
 * stored before it is sent, so an answer the client never receives is still there for its retry.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
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
        if (outcome.kind === 'claimed') return this.runOnce(outcome.claim, next, reply);
        void reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
        return of(outcome.body);
      }),
    );
  }

  private runOnce(claim: IdempotencyClaim, next: CallHandler, reply: FastifyReply): Observable<unknown> {
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
      catchError((error: unknown) =>
        from(this.idempotency.release(claim)).pipe(mergeMap(() => throwError(() => error))),
      ),
      mergeMap(async (body: unknown) => {
        await this.idempotency.complete(claim, reply.statusCode, body);
        return body;
      }),
      finalize(() => clearInterval(renewal)),
    );
  }
}
