import { PortableMigration } from './portable-migration';

/** Idempotency-Key records: a hash of (organization, key), never the key; the stored answer is sealed. */
export class Migration0900IdempotencyKeys extends PortableMigration {
  override up(): void {
    this.addSql(`create table idempotency_keys (
      id text not null primary key,
      org_id text not null,
      fingerprint text not null,
      state text not null,
      lease_token text not null,
      lease_until ${this.types.timestamp} not null,
      status_code integer null,
      response_sealed text null,
      created_at ${this.types.timestamp} not null,
      expires_at ${this.types.timestamp} not null
    )`);
    this.addSql('create index idempotency_keys_expiry on idempotency_keys (expires_at)');
  }
}
