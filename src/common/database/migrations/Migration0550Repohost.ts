import { PortableMigration } from './portable-migration';

export class Migration0550Repohost extends PortableMigration {
  override up(): void {
    this.addSql(`create table inbound_deliveries (
      id text not null primary key,
      delivery_id text not null unique,
      event text not null,
      received_at ${this.types.timestamp} not null,
      status text not null,
      attempts integer not null default 0,
      last_error text null,
      payload text not null,
      processed_at ${this.types.timestamp} null,
      next_attempt_at ${this.types.timestamp} null
    )`);
    this.addSql('create index inbound_deliveries_pending on inbound_deliveries (status, next_attempt_at)');
  }
}
