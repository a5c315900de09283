import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/sqlite';
import { pageOf, rowsToFetch } from '../../common/http/cursor-page';
import { Trigger, TriggerSchema } from './trigger.entity';

/** Time-ordered ids, so the id alone pages a list in creation order without ties. */
export function timeOrderedId(prefix: string, now: number): string {
  return `${prefix}_${now.toString(36).padStart(10, '0')}${randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

export type NewTrigger = Omit<Trigger, 'id' | 'createdAt' | 'updatedAt'>;
export type TriggerChanges = Partial<Omit<Trigger, 'id' | 'orgId' | 'createdAt'>>;

export interface TriggerPage {
  readonly triggers: Trigger[];
  readonly nextCursor: string | null;
}

@Injectable()
export class TriggerRepository {
  constructor(private readonly em: EntityManager) {}

  async create(fields: NewTrigger, now: Date): Promise<Trigger> {
    const em = this.em.fork();
    const trigger = em.create(TriggerSchema, {
      ...fields,
      id: timeOrderedId('trg', now.getTime()),
      createdAt: now,
      updatedAt: now,
    });
    await em.persistAndFlush(trigger);
    return trigger;
  }

  findForOrg(orgId: string, id: string): Promise<Trigger | null> {
    return this.em.fork().findOne(TriggerSchema, { id, orgId });
  }

  async listForOrg(orgId: string, limit: number, cursor?: string): Promise<TriggerPage> {
    const rows = await this.em
      .fork()
      .find(TriggerSchema, cursor ? { orgId, id: { $gt: cursor } } : { orgId }, {
        orderBy: { id: 'asc' },
        limit: rowsToFetch(limit),
      });
    const page = pageOf(rows, limit, (last) => last.id);
    return { triggers: page.items, nextCursor: page.nextCursor };
  }

  /** Applies `changes` to the trigger of the org; null when it does not exist (any more). */
  async update(orgId: string, id: string, changes: TriggerChanges): Promise<Trigger | null> {
    const em = this.em.fork();
    const updated = await em.nativeUpdate(TriggerSchema, { id, orgId }, changes);
    return updated === 1 ? em.findOne(TriggerSchema, { id }, { refresh: true }) : null;
  }

  /** Deletes the trigger and its fire history; queued webhooks stay in the outbox and are still delivered. */
  async delete(orgId: string, id: string): Promise<boolean> {
    return (await this.em.fork().nativeDelete(TriggerSchema, { id, orgId })) === 1;
  }
}
