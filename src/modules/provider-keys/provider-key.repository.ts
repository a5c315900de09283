import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { ProviderKey, ProviderKeySchema } from './provider-key.entity';

@Injectable()
export class ProviderKeyRepository {
  constructor(private readonly em: EntityManager) {}

  async upsert(orgId: string, backend: string, sealedSecret: string): Promise<ProviderKey> {
    return this.em.fork().transactional(async (em) => {
      const now = new Date().toISOString();
      const existing = await em.findOne(ProviderKeySchema, { orgId, backend });
      if (existing) {
        existing.sealedSecret = sealedSecret;
        existing.updatedAt = now;
        return existing;
      }
      const created = em.create(ProviderKeySchema, {
        id: `pk_${randomUUID().replace(/-/g, '')}`,
        orgId,
        backend,
        sealedSecret,
        createdAt: now,
        updatedAt: now,
      });
      em.persist(created);
      return created;
    });
  }

  async list(orgId: string): Promise<ProviderKey[]> {
    return this.em.fork().find(ProviderKeySchema, { orgId }, { orderBy: { backend: 'asc' } });
  }

  async findSealed(orgId: string, backend: string): Promise<string | undefined> {
    const row = await this.em
      .fork()
      .findOne(ProviderKeySchema, { orgId, backend }, { populate: ['sealedSecret'] });
    return row?.sealedSecret;
  }

  async delete(orgId: string, backend: string): Promise<boolean> {
    const deleted = await this.em.fork().nativeDelete(ProviderKeySchema, { orgId, backend });
    return deleted > 0;
  }
}
