import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { pageOf, rowsToFetch } from '../../common/http/cursor-page';
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
  readonly body: Record<string, unknown>;
}

export interface AttemptRecord {
  readonly attemptedAt: Date;
  readonly statusCode?: number;
  readonly durationMs: number;
  readonly error?: string;
}

export interface DeliveryFilter {
  readonly jobId?: string;
  readonly status?: DeliveryStatus;
  readonly limit: number;
  readonly cursor?: string;
}

function timeOrderedId(prefix: string, now: number): string {
  return `${prefix}_${now.toString(36).padStart(10, '0')}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly em: EntityManager) {}

  /** Written inside the caller's transaction (the job's completion), so the message exists iff the job finished. */
  async insert(em: EntityManager, delivery: NewDelivery, now: Date): Promise<void> {
    const row = em.create(WebhookDeliverySchema, {
      id: timeOrderedId('dlv', now.getTime()),
      orgId: delivery.orgId,
      event: delivery.event,
      url: delivery.url,
      jobId: delivery.jobId ?? null,
      webhookId: timeOrderedId('msg', now.getTime()),
      body: JSON.stringify(delivery.body),
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
    });
    em.persist(row);
    await em.flush();
  }

  /** Claims one due delivery with a lease; a claim whose worker died expires and is claimed again. */
  async claimDue(now: Date, leaseMs: number): Promise<WebhookDelivery | null> {
    return this.em.fork().transactional(async (em) => {
      const due = await em.findOne(
        WebhookDeliverySchema,
        {
          status: 'pending',
          nextAttemptAt: { $lte: now },
          $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }],
        },
        { orderBy: { nextAttemptAt: 'asc', id: 'asc' } },
      );
      if (!due) return null;
      const leased = await em.nativeUpdate(
        WebhookDeliverySchema,
        { id: due.id, status: 'pending', attemptCount: due.attemptCount },
        { leaseUntil: new Date(now.getTime() + leaseMs) },
      );
      return leased === 1 ? due : null;
    });
  }

  /** At start no other process holds a claim (one daemon per data dir), so leases of a dead one are void. */
  async releaseLeases(): Promise<number> {
    return this.em
      .fork()
      .nativeUpdate(
        WebhookDeliverySchema,
        { status: 'pending', leaseUntil: { $ne: null } },
        { leaseUntil: null },
      );
  }

  /** Records one attempt and the delivery's next state in one transaction. */
  async recordAttempt(
    id: string,
    attempt: AttemptRecord,
    next: { status: DeliveryStatus; nextAttemptAt: Date | null },
  ): Promise<void> {
    await this.em.fork().transactional(async (em) => {
      em.persist(
        em.create(WebhookAttemptSchema, {
          deliveryId: id,
          attemptedAt: attempt.attemptedAt,
          statusCode: attempt.statusCode ?? null,
          durationMs: attempt.durationMs,
          error: attempt.error ?? null,
        }),
      );
      const delivery = await em.findOneOrFail(WebhookDeliverySchema, { id });
      delivery.attemptCount += 1;
      delivery.status = next.status;
      delivery.nextAttemptAt = next.nextAttemptAt;
      delivery.leaseUntil = null;
      if (next.status === 'delivered') delivery.deliveredAt = attempt.attemptedAt;
      await em.flush();
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
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.cursor ? { id: { $lt: filter.cursor } } : {}),
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

  /** Puts a finished delivery back in the queue (same webhook-id and body); false when it is still pending. */
  async requeue(orgId: string, id: string, now: Date): Promise<boolean> {
    const updated = await this.em
      .fork()
      .nativeUpdate(
        WebhookDeliverySchema,
        { id, orgId, status: { $ne: 'pending' } },
        { status: 'pending', nextAttemptAt: now, leaseUntil: null },
      );
    return updated === 1;
  }
}
