import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { Lease, PreparedClaim, sharedWrite, Transaction, updateByIds } from '../../common/database';
import { GroupCommit } from '../../common/group-commit';
import { pageOf, rowsToFetch, timeOrderedCursor } from '../../common/http/cursor-page';
import { timeOrderedId } from '../../common/time-ordered-id';
import {
  DeliveryStatus,
  WebhookAttempt,
  WebhookAttemptSchema,
  WebhookDelivery,
  WebhookDeliverySchema,
} from './webhook-delivery.entity';

export interface NewDelivery {
  readonly orgId: string;
  readonly event: string;
  readonly url: string;
  readonly jobId?: string;
  readonly fireId?: string;
  readonly expiresAt?: Date;
  readonly body: Record<string, unknown>;
}

export interface AttemptRecord {
  readonly attemptedAt: Date;
  readonly statusCode?: number;
  readonly durationMs: number;
  readonly error?: string;
}

interface AttemptOutcome {
  readonly id: string;
  readonly owner: string;
  readonly attempt: AttemptRecord;
  readonly next: { status: DeliveryStatus; nextAttemptAt: Date | null };
}

export interface DeliveryFilter {
  readonly jobId?: string;
  readonly fireId?: string;
  readonly status?: DeliveryStatus;
  readonly limit: number;
  readonly cursor?: string;
}

function newRow(delivery: NewDelivery, now: Date): WebhookDelivery {
  return {
    id: timeOrderedId('dlv', now.getTime()),
    orgId: delivery.orgId,
    event: delivery.event,
    url: delivery.url,
    jobId: delivery.jobId ?? null,
    fireId: delivery.fireId ?? null,
    expiresAt: delivery.expiresAt ?? null,
    webhookId: timeOrderedId('msg', now.getTime()),
    body: JSON.stringify(delivery.body),
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    leaseOwner: null,
    createdAt: now,
    deliveredAt: null,
  };
}

const DUE = "status = 'pending' and next_attempt_at <= ? and (lease_until is null or lease_until < ?)";
const IN_FLIGHT = "status = 'pending' and next_attempt_at <= ? and lease_until >= ?";

// Organizations take turns and a destination or organization at its cap gets nothing more; PostgreSQL refuses
// `for update` beside window functions, hence the subquery.
const FAIR_PICK = `select id from webhook_deliveries where id in (select r.id from (
    select id, org_id, url, next_attempt_at,
      row_number() over (partition by org_id order by next_attempt_at, id) as org_turn,
      row_number() over (partition by url order by next_attempt_at, id) as url_turn
    from webhook_deliveries where ${DUE}
  ) r
  left join (select url, count(*) as n from webhook_deliveries where ${IN_FLIGHT} group by url) busy_url
    on busy_url.url = r.url
  left join (select org_id, count(*) as n from webhook_deliveries where ${IN_FLIGHT} group by org_id) busy_org
    on busy_org.org_id = r.org_id
  where r.url_turn + coalesce(busy_url.n, 0) <= ? and r.org_turn + coalesce(busy_org.n, 0) <= ?
  order by r.org_turn + coalesce(busy_org.n, 0), r.next_attempt_at, r.id
  limit ?)`;

const DELIVERY_CLAIM = {
  schema: WebhookDeliverySchema,
  table: 'webhook_deliveries',
  due: DUE,
  dueParams: (now: Date) => [now, now],
  pick: {
    sql: FAIR_PICK,
    params: (now: Date, limit: number, perDestination = UNCAPPED, perOrg = UNCAPPED) => [
      ...[now, now, now, now, now, now],
      perDestination,
      perOrg,
      limit,
    ],
  },
  orderBy: 'next_attempt_at, id',
  set: 'lease_owner = ?, lease_until = ?',
  setParams: (_now: Date, lease: Lease) => [lease.owner, lease.until],
  compare: (a: WebhookDelivery, b: WebhookDelivery) =>
    (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1),
};

export interface DeliveryCaps {
  readonly perDestination?: number;
  readonly perOrg?: number;
}

const UNCAPPED = 2 ** 31 - 1;

@Injectable()
export class WebhookDeliveryRepository {
  private readonly attempts = new GroupCommit<AttemptOutcome, boolean>((batch) => this.recordAll(batch));
  private readonly claimDeliveries: PreparedClaim<WebhookDelivery>;

  constructor(private readonly em: EntityManager) {
    this.claimDeliveries = new PreparedClaim(em, DELIVERY_CLAIM);
  }

  insertAll(tx: Transaction, deliveries: readonly NewDelivery[], now: Date): Promise<void> {
    return tx.insertAll(
      WebhookDeliverySchema,
      deliveries.map((delivery) => newRow(delivery, now)),
    );
  }

  // One prepared statement (`PreparedClaim`): a delivery is never held by two replicas.
  claimDue(now: Date, limit: number, lease: Lease, caps: DeliveryCaps = {}): Promise<WebhookDelivery[]> {
    return this.claimDeliveries.take(
      now,
      limit,
      lease,
      caps.perDestination ?? UNCAPPED,
      caps.perOrg ?? UNCAPPED,
    );
  }

  // Only `ids` when given: the deliveries this replica is really attempting.
  async renewLeases(lease: Lease, ids?: readonly string[]): Promise<number> {
    return this.em.fork().nativeUpdate(
      WebhookDeliverySchema,
      {
        status: 'pending',
        leaseOwner: lease.owner,
        leaseUntil: { $ne: null },
        ...(ids ? { id: { $in: [...ids] } } : {}),
      },
      { leaseUntil: lease.until },
    );
  }

  /** So the next claim takes it without waiting out the lease. */
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(
        WebhookDeliverySchema,
        { id, status: 'pending', leaseOwner: owner, leaseUntil: { $ne: null } },
        { leaseUntil: null },
      );
  }

  /** False when the lease was lost: the other replica's attempt is the one recorded. */
  recordAttempt(
    id: string,
    owner: string,
    attempt: AttemptRecord,
    next: { status: DeliveryStatus; nextAttemptAt: Date | null },
  ): Promise<boolean> {
    return this.attempts.submit({ id, owner, attempt, next });
  }

  private recordAll(batch: readonly AttemptOutcome[]): Promise<boolean[]> {
    return sharedWrite(this.em, async (em) => {
      const recorded = new Set<string>();
      // Each delivery has one holder, so a batch (one replica's) names one owner; a test may record for several.
      for (const owner of new Set(batch.map((outcome) => outcome.owner))) {
        const mine = batch.filter((outcome) => outcome.owner === owner);
        const updated = await updateByIds(em, {
          table: 'webhook_deliveries',
          ids: mine.map(({ id }) => id),
          set: {
            attempt_count: { sql: 'attempt_count + 1' },
            status: { each: mine.map(({ next }) => next.status) },
            next_attempt_at: { each: mine.map(({ next }) => next.nextAttemptAt), timestamp: true },
            lease_until: { sql: 'null' },
            delivered_at: {
              each: mine.map(({ attempt, next }) =>
                next.status === 'delivered' ? attempt.attemptedAt : null,
              ),
              timestamp: true,
              keepOnNull: true,
            },
          },
          guard: "status = 'pending' and lease_owner = ? and lease_until is not null",
          guardParams: [owner],
        });
        for (const id of updated) recorded.add(id);
      }
      const rows = batch
        .filter(({ id }) => recorded.has(id))
        .map(({ id, attempt }) => ({
          deliveryId: id,
          attemptedAt: attempt.attemptedAt,
          statusCode: attempt.statusCode ?? null,
          durationMs: attempt.durationMs,
          error: attempt.error ?? null,
        }));
      if (rows.length > 0) await em.insertMany(WebhookAttemptSchema, rows);
      return batch.map(({ id }) => recorded.has(id));
    });
  }

  async findForOrg(orgId: string, id: string): Promise<WebhookDelivery | null> {
    return this.em.fork().findOne(WebhookDeliverySchema, { id, orgId });
  }

  async list(
    orgId: string,
    filter: DeliveryFilter,
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor: string | null }> {
    const rows = await this.em.fork().find(
      WebhookDeliverySchema,
      {
        orgId,
        ...(filter.jobId ? { jobId: filter.jobId } : {}),
        ...(filter.fireId ? { fireId: filter.fireId } : {}),
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.cursor ? { id: { $lt: timeOrderedCursor(filter.cursor, 'dlv') } } : {}),
      },
      { orderBy: { id: 'desc' }, limit: rowsToFetch(filter.limit) },
    );
    const page = pageOf(rows, filter.limit, (last) => last.id);
    return { deliveries: page.items, nextCursor: page.nextCursor };
  }

  async attemptsOf(deliveryIds: readonly string[]): Promise<Map<string, WebhookAttempt[]>> {
    const byDelivery = new Map<string, WebhookAttempt[]>();
    if (deliveryIds.length === 0) return byDelivery;
    const attempts = await this.em
      .fork()
      .find(WebhookAttemptSchema, { deliveryId: { $in: [...deliveryIds] } }, { orderBy: { id: 'asc' } });
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.deliveryId, list);
    }
    return byDelivery;
  }

  /** A redelivery never sends a message past its deadline: it is marked `expired` instead. */
  async requeue(orgId: string, id: string, now: Date): Promise<boolean> {
    const em = this.em.fork();
    const finished = { id, orgId, status: { $ne: 'pending' as const } };
    const expired = await em.nativeUpdate(
      WebhookDeliverySchema,
      { ...finished, expiresAt: { $ne: null, $lt: now } },
      { status: 'expired', nextAttemptAt: null, leaseUntil: null },
    );
    if (expired === 1) return true;
    const updated = await em.nativeUpdate(
      WebhookDeliverySchema,
      { ...finished, $or: [{ expiresAt: null }, { expiresAt: { $gte: now } }] },
      { status: 'pending', nextAttemptAt: now, leaseUntil: null },
    );
    return updated === 1;
  }

  async markExpired(id: string, owner: string): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(
        WebhookDeliverySchema,
        { id, status: 'pending', leaseOwner: owner, leaseUntil: { $ne: null } },
        { status: 'expired', nextAttemptAt: null, leaseUntil: null },
      );
    return updated === 1;
  }
}
