import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { QueryResult } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import {
  CursorPage,
  decodeCursor,
  encodeCursor,
  invalidCursor,
  pageOf,
  rowsToFetch,
} from '../../common/http/cursor-page';
import { InboundDelivery, InboundDeliverySchema } from './inbound-delivery.entity';

export interface InboundListQuery {
  readonly limit: number;
  readonly before?: Date;
  readonly cursor?: string;
}

function afterCursor(cursor: string) {
  const [receivedAt, id] = decodeCursor(cursor, 2);
  const at = new Date(receivedAt);
  if (Number.isNaN(at.getTime())) throw invalidCursor();
  return { $or: [{ receivedAt: { $lt: at } }, { receivedAt: at, id: { $lt: id } }] };
}

@Injectable()
export class InboundDeliveryRepository {
  constructor(private readonly em: EntityManager) {}

  async insertIfNew(deliveryId: string, event: string, payload: string, now: Date): Promise<boolean> {
    const result = await this.em
      .fork()
      .getConnection()
      .execute<QueryResult>(
        `insert into inbound_deliveries (id, delivery_id, event, received_at, status, attempts, payload, next_attempt_at)
         values (?, ?, ?, ?, 'received', 0, ?, ?) on conflict (delivery_id) do nothing`,
        [`inb_${randomUUID().replace(/-/g, '')}`, deliveryId, event, now, payload, now],
        'run',
      );
    return result.affectedRows === 1;
  }

  async findDue(now: Date, limit: number): Promise<InboundDelivery[]> {
    return this.em
      .fork()
      .find(
        InboundDeliverySchema,
        { status: 'received', nextAttemptAt: { $lte: now } },
        { orderBy: { receivedAt: 'asc', id: 'asc' }, limit, populate: ['payload'] },
      );
  }

  async markProcessed(id: string, attempts: number, now: Date): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(
        InboundDeliverySchema,
        { id },
        { status: 'processed', attempts, processedAt: now, lastError: null, nextAttemptAt: null },
      );
  }

  async markFailed(id: string, attempts: number, error: string): Promise<void> {
    await this.em
      .fork()
      .nativeUpdate(
        InboundDeliverySchema,
        { id },
        { status: 'failed', attempts, lastError: error, nextAttemptAt: null },
      );
  }

  async list(query: InboundListQuery): Promise<CursorPage<InboundDelivery>> {
    const conditions = [
      ...(query.before ? [{ receivedAt: { $lt: query.before } }] : []),
      ...(query.cursor ? [afterCursor(query.cursor)] : []),
    ];
    const rows = await this.em
      .fork()
      .find(InboundDeliverySchema, conditions.length > 0 ? { $and: conditions } : {}, {
        orderBy: { receivedAt: 'desc', id: 'desc' },
        limit: rowsToFetch(query.limit),
      });
    return pageOf(rows, query.limit, (last) => encodeCursor([last.receivedAt.toISOString(), last.id]));
  }
}
