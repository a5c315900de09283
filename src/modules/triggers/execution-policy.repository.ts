import { Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/knex';
import { ExecutionPolicySnapshot, ExecutionPolicySnapshotSchema } from './execution-policy.entity';
import { timeOrderedId } from '../../common/time-ordered-id';

export type NewSnapshot = Pick<
  ExecutionPolicySnapshot,
  'mode' | 'minOutcomes' | 'outcomeReporterRoles' | 'createdBy'
>;

@Injectable()
export class ExecutionPolicyRepository {
  constructor(private readonly em: EntityManager) {}

  latest(orgId: string): Promise<ExecutionPolicySnapshot | null> {
    return this.em.fork().findOne(ExecutionPolicySnapshotSchema, { orgId }, { orderBy: { seq: 'desc' } });
  }

  findForOrg(orgId: string, id: string): Promise<ExecutionPolicySnapshot | null> {
    return this.em.fork().findOne(ExecutionPolicySnapshotSchema, { id, orgId });
  }

  /**
   * Appends snapshot number `seq`; null when another writer took that number first (the unique (org, seq) pair
   * makes concurrent changes serialise instead of both claiming to be the latest).
   */
  async append(
    orgId: string,
    seq: number,
    fields: NewSnapshot,
    now: Date,
  ): Promise<ExecutionPolicySnapshot | null> {
    const em = this.em.fork();
    const row = em.create(ExecutionPolicySnapshotSchema, {
      ...fields,
      id: timeOrderedId('pol', now.getTime()),
      orgId,
      seq,
      createdAt: now,
    });
    try {
      await em.persistAndFlush(row);
      return row;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return null;
      throw error;
    }
  }
}
