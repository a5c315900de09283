import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { ServerSecrets, signJwt, verifyJwt } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { LRUCache } from 'lru-cache';
import { AccountsRepository } from './accounts.repository';
import { SessionIdentity } from './accounts.types';

export const SESSION_LIFETIME_S = 604_800;
const CACHE_TTL_MS = 30_000;

const FAILURE_MESSAGES = {
  malformed: 'The session token is malformed.',
  unsupported_algorithm: 'The session token must be signed with HS256.',
  bad_signature: 'The session token signature does not match.',
  expired: 'The session token has expired: log in again.',
  not_yet_valid: 'The session token is not valid yet.',
} as const;

/**
 * Session tokens are HS256 JWTs naming a session row (`sid`), so a reset can revoke every session. Replicas sharing
 * a database do not cache resolutions, so a revocation reaches every replica at its next request.
 */
@Injectable()
export class SessionsService {
  private readonly cache = new LRUCache<string, SessionIdentity>({ max: 10_000, ttl: CACHE_TTL_MS });
  /** Bumped on every revocation: a lookup that raced one is not cached (it may have read the row before the commit). */
  private revocationEpoch = 0;
  private readonly isCacheAuthoritative: boolean;

  constructor(
    private readonly repository: AccountsRepository,
    private readonly secrets: ServerSecrets,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'databaseUrl'>,
  ) {
    this.isCacheAuthoritative = config.databaseUrl === undefined;
  }

  async issue(userId: string, ip: string): Promise<{ token: string; expiresIn: number }> {
    const nowS = Math.floor(Date.now() / 1000);
    const expS = nowS + SESSION_LIFETIME_S;
    const session = await this.repository.insertSession({
      userId,
      ip,
      createdAt: new Date(nowS * 1000).toISOString(),
      expiresAt: new Date(expS * 1000).toISOString(),
    });
    const token = await signJwt(this.secrets.jwtKey, { sub: userId, sid: session.id, iat: nowS, exp: expS });
    return { token, expiresIn: SESSION_LIFETIME_S };
  }

  async resolve(token: string): Promise<SessionIdentity> {
    const verified = await verifyJwt(this.secrets.jwtKey, token);
    if (!verified.ok) throw new AppError('invalid_session', FAILURE_MESSAGES[verified.reason]);
    const { sid, sub } = verified.claims;
    if (typeof sid !== 'string' || typeof sub !== 'string') throw new AppError('invalid_session');
    const now = new Date().toISOString();
    const cached = this.isCacheAuthoritative ? this.cache.get(sid) : undefined;
    if (cached && cached.userId === sub && cached.expiresAt > now) return cached;
    const epoch = this.revocationEpoch;
    const live = await this.repository.findLiveSession(sid, sub, now);
    if (!live) throw new AppError('invalid_session', 'The session has ended: log in again.');
    const identity: SessionIdentity = {
      sessionId: sid,
      userId: sub,
      orgId: live.user.orgId,
      role: live.user.role,
      expiresAt: live.session.expiresAt,
    };
    if (this.isCacheAuthoritative && epoch === this.revocationEpoch) this.cache.set(sid, identity);
    return identity;
  }

  /** Revokes in `tx`; call forgetUser after the commit. */
  async revokeAll(userId: string, tx: EntityManager): Promise<number> {
    return this.repository.revokeSessionsOf(userId, new Date().toISOString(), tx);
  }

  forgetUser(userId: string): void {
    this.revocationEpoch += 1;
    for (const [sid, identity] of [...this.cache.entries()]) {
      if (identity.userId === userId) this.cache.delete(sid);
    }
  }
}
