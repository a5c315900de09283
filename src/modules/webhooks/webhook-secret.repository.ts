import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { PreparedWrite } from '../../common/database/prepared-write';
import { WebhookSigningSecret, WebhookSigningSecretSchema } from './webhook-secret.entity';

interface SecretRow {
  org_id: string;
  current_sealed: string;
  previous_sealed: string | null;
  previous_until: string | null;
  created_at: string;
  rotated_at: string | null;
}

const FIND_SECRET =
  'select org_id, current_sealed, previous_sealed, previous_until, created_at, rotated_at ' +
  'from webhook_signing_secrets where org_id = ?';

@Injectable()
export class WebhookSecretRepository {
  /** Read for every burst of deliveries an organization sends: prepared once, not built and hydrated each time. */
  private readonly findSecret: PreparedWrite;

  constructor(private readonly em: EntityManager) {
    this.findSecret = new PreparedWrite(em, FIND_SECRET);
  }

  async find(orgId: string): Promise<WebhookSigningSecret | null> {
    const [row] = await this.findSecret.returning<SecretRow>([orgId]);
    if (!row) return null;
    return {
      orgId: row.org_id,
      currentSealed: row.current_sealed,
      previousSealed: row.previous_sealed,
      previousUntil: row.previous_until,
      createdAt: row.created_at,
      rotatedAt: row.rotated_at,
    };
  }

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
