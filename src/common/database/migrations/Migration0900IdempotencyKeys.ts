import { Migration } from '@mikro-orm/migrations';

/** Idempotency-Key records: a hash of (organization, key), never the key; the stored answer is sealed. */
export class Migration0900IdempotencyKeys extends Migration {
  override up(): void {
    this.addSql(`create table idempotency_keys (
      id text not null primary key,
      org_id text not null,
      fingerprint text not null,
      state text not null,
      lease_token text not null,
      lease_until datetime not null,
      status_code integer null,
      response_sealed text null,
      created_at datetime not null,
      expires_at datetime not null
    )`);
    this.addSql('create index idempotency_keys_expiry on idempotency_keys (expires_at)');
  }
}
