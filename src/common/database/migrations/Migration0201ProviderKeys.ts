import { PortableMigration } from './portable-migration';

export class Migration0201ProviderKeys extends PortableMigration {
  override up(): void {
    this.addSql(`create table provider_keys (
      id text not null primary key,
      org_id text not null,
      backend text not null,
      sealed_secret text not null,
      created_at text not null,
      updated_at text not null
    )`);
    this.addSql('create unique index provider_keys_org_backend on provider_keys (org_id, backend)');
  }
}
