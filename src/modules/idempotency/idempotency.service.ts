import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { canonicalJson } from '../../common/crypto/canonical-json';
import { SecretVault, sha256Hex } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { idempotencyResponseAad, IdempotencyRecord } from './idempotency-record.entity';
import { IdempotencyRepository, NewClaim } from './idempotency.repository';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
// Renewed while the request runs, so only a claim whose daemon died lapses.
export const IDEMPOTENCY_LEASE_MS = 2 * 60 * 1000;
/** A take-over that loses a race reads the record again, at most this many times, then answers 409. */
const MAX_CLAIM_ROUNDS = 3;

export interface IdempotentRequest {
  readonly orgId: string;
  readonly key: string;
  readonly method: string;
  readonly route: string;
  /** The API key or user that sends it: another caller of the organization cannot read this caller's answer. */
  readonly caller: string;
  readonly body: unknown;
}

export interface IdempotencyClaim {
  readonly id: string;
  readonly leaseToken: string;
  readonly operationId: string;
}

export type IdempotencyOutcome =
  /** `resumed`: an earlier run of this request held the key and died; it may have created the thing already. */
  | { readonly kind: 'claimed'; readonly claim: IdempotencyClaim; readonly resumed: boolean }
  | { readonly kind: 'replay'; readonly statusCode: number; readonly body: unknown };

export function idempotencyRecordId(orgId: string, key: string): string {
  return sha256Hex(`${orgId}\n${key}`);
}

export function requestFingerprint(request: IdempotentRequest): string {
  return sha256Hex(
    canonicalJson({
      method: request.method,
      route: request.route,
      caller: request.caller,
      body: request.body ?? null,
    }),
  );
}

// draft-ietf-httpapi-idempotency-key-header. Only successes are kept: an error releases the key, so a retry runs again.
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly records: IdempotencyRepository,
    private readonly vault: SecretVault,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async begin(request: IdempotentRequest): Promise<IdempotencyOutcome> {
    const id = idempotencyRecordId(request.orgId, request.key);
    const fingerprint = requestFingerprint(request);
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const claim = this.newClaim(id, request.orgId, fingerprint);
      if (await this.records.insertClaim(claim)) return this.claimed(claim, false);
      const seen = await this.records.find(id);
      if (!seen) continue;
      const now = claim.now;
      if (seen.expiresAt <= now) {
        if (await this.records.takeOver(seen, claim)) return this.claimed(claim, false);
        continue;
      }
      if (seen.fingerprint !== fingerprint) throw new AppError('idempotency_key_reused');
      if (seen.state === 'completed') return this.replay(seen);
      if (seen.leaseUntil > now) throw this.inUse();
      const resumed = { ...claim, operationId: seen.operationId ?? claim.operationId };
      if (await this.records.takeOver(seen, resumed)) {
        this.logger.warn(
          { event: 'idempotency_claim_lapsed', org_id: request.orgId, route: request.route },
          'an in-flight request was never finished (daemon stopped?): its retry resumes it',
        );
        return this.claimed(resumed, true);
      }
    }
    throw this.inUse();
  }

  renew(claim: IdempotencyClaim): Promise<boolean> {
    return this.records.renew(claim.id, claim.leaseToken, this.leaseUntil(this.clock.now()));
  }

  async complete(claim: IdempotencyClaim, statusCode: number, body: unknown): Promise<void> {
    const sealed = this.vault.seal(JSON.stringify(body ?? null), idempotencyResponseAad(claim.id));
    if (!(await this.records.complete(claim.id, claim.leaseToken, statusCode, sealed))) {
      this.logger.warn(
        { event: 'idempotency_claim_lost' },
        'a request finished after its Idempotency-Key claim lapsed; its answer was not kept',
      );
    }
  }

  release(claim: IdempotencyClaim): Promise<void> {
    return this.records.release(claim.id, claim.leaseToken);
  }

  deleteExpired(): Promise<number> {
    return this.records.deleteExpired(this.clock.now());
  }

  private newClaim(id: string, orgId: string, fingerprint: string): NewClaim {
    const now = this.clock.now();
    return {
      id,
      orgId,
      fingerprint,
      leaseToken: randomBytes(16).toString('hex'),
      leaseUntil: this.leaseUntil(now),
      operationId: randomBytes(16).toString('hex'),
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
    };
  }

  private leaseUntil(now: Date): Date {
    return new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
  }

  private claimed(claim: NewClaim, resumed: boolean): IdempotencyOutcome {
    const { id, leaseToken, operationId } = claim;
    return { kind: 'claimed', claim: { id, leaseToken, operationId }, resumed };
  }

  private replay(record: IdempotencyRecord): IdempotencyOutcome {
    if (record.statusCode === null || record.responseSealed === null)
      throw new Error('completed record without answer');
    const body: unknown = JSON.parse(
      this.vault.open(record.responseSealed, idempotencyResponseAad(record.id)),
    );
    return { kind: 'replay', statusCode: record.statusCode, body };
  }

  /** The first request's end cannot be predicted; a second is a fair pace to poll at. */
  private inUse(): AppError {
    return AppError.retryLater('idempotency_key_in_use', 1000);
  }
}
