import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { OrganizationEntity } from './account.entities';
import { AccountsRepository } from './accounts.repository';
import { Organization } from './accounts.types';

/** Organizations never change name or operator status after creation, so lookups are cached. */
@Injectable()
export class OrganizationsService {
  private readonly cache = new LRUCache<string, Organization>({ max: 10_000, ttl: 5 * 60_000 });

  constructor(private readonly repository: AccountsRepository) {}

  /** The organization if memory already holds it (see get()); lets credential resolution stay synchronous. */
  peek(orgId: string): Organization | undefined {
    return this.cache.get(orgId);
  }

  async get(orgId: string): Promise<Organization | undefined> {
    const cached = this.cache.get(orgId);
    if (cached) return cached;
    const entity = await this.repository.findOrganization(orgId);
    if (!entity) return undefined;
    const org = toOrganization(entity);
    this.cache.set(orgId, org);
    return org;
  }

  async isOperatorOrg(orgId: string): Promise<boolean> {
    return (await this.get(orgId))?.isOperator ?? false;
  }

  async operatorOrganization(): Promise<Organization | undefined> {
    const entity = await this.repository.findOperatorOrganization();
    return entity ? toOrganization(entity) : undefined;
  }
}

export function toOrganization(entity: OrganizationEntity): Organization {
  return { id: entity.id, name: entity.name, isOperator: entity.isOperator, createdAt: entity.createdAt };
}
