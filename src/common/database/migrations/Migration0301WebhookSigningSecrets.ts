import { PortableMigration } from './portable-migration';

export class Migration0301WebhookSigningSecrets extends PortableMigration {
  override up(): void {
    this.addSql(`create table webhook_signing_secrets (
      org_id text not null primary key,
      current_sealed text not null,
      previous_sealed text null,
      previous_until text null,
      created_at text not null,
      rotated_at text null
    )`);
  }
}
