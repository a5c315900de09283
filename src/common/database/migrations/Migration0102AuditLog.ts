import { PortableMigration } from './portable-migration';

/** Append-only audit log; `seq` orders events written in the same millisecond. */
export class Migration0102AuditLog extends PortableMigration {
  override up(): void {
    this.addSql(`create table audit_events (
      seq ${this.types.identity},
      id text not null,
      org_id text null,
      event text not null,
      actor_type text not null,
      actor_id text null,
      ip text null,
      target_type text null,
      target_id text null,
      details text null,
      created_at text not null
    )`);
    this.addSql('create unique index audit_events_id on audit_events (id)');
    this.addSql('create index audit_events_org_time on audit_events (org_id, created_at)');
  }
}
