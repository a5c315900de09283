import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { ConnectorEntity, ConnectorSchema, ConnectorStatus } from './connector.entity';

export interface ListPosition {
  readonly createdAt: string;
  readonly id: string;
}

export interface TestRecord {
  readonly status: ConnectorStatus;
  readonly errorMessage: string | null;
  readonly errorType: string | null;
  readonly testedAt: string;
}

@Injectable()
export class ConnectorRepository {
  constructor(private readonly em: EntityManager) {}

  async insert(entity: ConnectorEntity): Promise<void> {
    const em = this.em.fork();
    em.create(ConnectorSchema, entity);
    await em.flush();
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<ConnectorEntity | null> {
    return this.em.fork().findOne(ConnectorSchema, { orgId, idempotencyId });
  }

  async findForOrg(orgId: string, id: string): Promise<ConnectorEntity | null> {
    return this.em.fork().findOne(ConnectorSchema, { id, orgId });
  }

  async listForOrg(orgId: string, limit: number, after?: ListPosition): Promise<ConnectorEntity[]> {
    const where = after
      ? {
          orgId,
          $or: [
            { createdAt: { $gt: after.createdAt } },
            { createdAt: after.createdAt, id: { $gt: after.id } },
          ],
        }
      : { orgId };
    return this.em.fork().find(ConnectorSchema, where, { orderBy: { createdAt: 'asc', id: 'asc' }, limit });
  }

  async update(
    orgId: string,
    id: string,
    changes: Partial<
      Pick<ConnectorEntity, 'name' | 'configSealed' | 'status' | 'errorMessage' | 'errorType'>
    >,
    bumpConfigVersion: boolean,
  ): Promise<ConnectorEntity | null> {
    const em = this.em.fork();
    return em.transactional(async (tx) => {
      const entity = await tx.findOne(ConnectorSchema, { id, orgId });
      if (!entity) return null;
      Object.assign(entity, changes, { updatedAt: new Date().toISOString() });
      if (bumpConfigVersion) entity.configVersion += 1;
      return entity;
    });
  }

  /** Records a test result unless the config changed since the test started (then the result is stale). */
  async recordTest(orgId: string, id: string, configVersion: number, result: TestRecord): Promise<boolean> {
    const affected = await this.em.fork().nativeUpdate(
      ConnectorSchema,
      { id, orgId, configVersion },
      {
        status: result.status,
        errorMessage: result.errorMessage,
        errorType: result.errorType,
        lastTestedAt: result.testedAt,
        updatedAt: result.testedAt,
      },
    );
    return affected > 0;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    return (await this.em.fork().nativeDelete(ConnectorSchema, { id, orgId })) > 0;
  }
}
