import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { WebhookSigningSecret, WebhookSigningSecretSchema } from './webhook-secret.entity';

@Injectable()
export class WebhookSecretRepository {
  constructor(private readonly em: EntityManager) {}

  async find(orgId: string): Promise<WebhookSigningSecret | null> {
    return this.em.fork().findOne(WebhookSigningSecretSchema, { orgId });
  }

  /** Inserts the first secret unless another request got there first; returns the stored row either way. */
  async insertIfMissing(row: WebhookSigningSecret): Promise<WebhookSigningSecret> {
    const em = this.em.fork();
    await em
      .createQueryBuilder(WebhookSigningSecretSchema)
      .insert(row)
      .onConflict('orgId')
      .ignore()
      .execute();
    return (await em.findOne(WebhookSigningSecretSchema, { orgId: row.orgId })) as WebhookSigningSecret;
  }

  async save(row: WebhookSigningSecret): Promise<void> {
    await this.em.fork().upsert(WebhookSigningSecretSchema, row);
  }
}
