import { PortableMigration } from './portable-migration';

export class Migration0500Jobs extends PortableMigration {
  override up(): void {
    this.addSql(`create table jobs (
      id text not null primary key,
      org_id text not null,
      status text not null,
      request text not null,
      callback_url text null,
      created_at ${this.types.timestamp} not null,
      started_at ${this.types.timestamp} null,
      finished_at ${this.types.timestamp} null,
      run_id text null,
      result text null,
      error text null,
      attempts integer not null default 0
    )`);
    this.addSql('create index jobs_queue on jobs (status, created_at, id)');
    this.addSql('create index jobs_org on jobs (org_id, created_at, id)');
    this.addSql(`create table webhook_deliveries (
      id text not null primary key,
      org_id text not null,
      event text not null,
      url text not null,
      job_id text null,
      webhook_id text not null unique,
      body text not null,
      status text not null,
      attempt_count integer not null default 0,
      next_attempt_at ${this.types.timestamp} null,
      lease_until ${this.types.timestamp} null,
      created_at ${this.types.timestamp} not null,
      delivered_at ${this.types.timestamp} null
    )`);
    this.addSql('create index webhook_deliveries_due on webhook_deliveries (status, next_attempt_at)');
    this.addSql('create index webhook_deliveries_org on webhook_deliveries (org_id, created_at, id)');
    this.addSql(`create table webhook_delivery_attempts (
      id ${this.types.identity},
      delivery_id text not null references webhook_deliveries (id) on delete cascade,
      attempted_at ${this.types.timestamp} not null,
      status_code integer null,
      duration_ms ${this.types.float} not null,
      error text null
    )`);
    this.addSql(
      'create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id, id)',
    );
  }
}
