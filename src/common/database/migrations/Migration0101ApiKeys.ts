import { PortableMigration } from './portable-migration';

/** API keys: only a keyed hash (HMAC-SHA256 with a server secret kept outside the database) is stored. */
export class Migration0101ApiKeys extends PortableMigration {
  override up(): void {
    this.addSql(`create table api_keys (
      id text not null primary key,
      org_id text not null references organizations (id),
      label text not null,
      key_prefix text not null,
      key_hash text not null,
      role text not null,
      device_limit integer not null default 0,
      created_by text null,
      created_at text not null,
      expires_at text null,
      revoked_at text null,
      last_used_at text null
    )`);
    this.addSql('create unique index api_keys_hash on api_keys (key_hash)');
    this.addSql('create index api_keys_org on api_keys (org_id, revoked_at)');
  }
}
