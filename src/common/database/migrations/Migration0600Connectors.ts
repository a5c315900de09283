import { PortableMigration } from './portable-migration';

export class Migration0600Connectors extends PortableMigration {
  override up(): void {
    this.addSql(`create table connectors (
      id text not null primary key,
      org_id text not null,
      name text not null,
      connector_type text not null,
      provider text null,
      config_sealed text not null,
      config_version integer not null default 1,
      status text not null check (status in ('untested', 'live', 'error')),
      error_message text null,
      error_type text null,
      last_tested_at text null,
      created_at text not null,
      updated_at text not null
    )`);
    this.addSql('create index connectors_org_created_idx on connectors (org_id, created_at, id)');
  }
}
