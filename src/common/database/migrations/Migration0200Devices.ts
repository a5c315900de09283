import { PortableMigration } from './portable-migration';

export class Migration0200Devices extends PortableMigration {
  override up(): void {
    this.addSql(`create table devices (
      id text not null primary key,
      org_id text not null,
      key_id text not null,
      device_id text not null,
      platform text null,
      platform_version text null,
      sdk_version text null,
      fingerprint text not null,
      binding_token_hash text null,
      bound_at text not null,
      last_seen_at text not null,
      registered_at text null,
      revoked_at text null
    )`);
    // At most one live record per (key, machine); revoked rows stay for the audit trail.
    this.addSql(
      'create unique index devices_live_key_device on devices (key_id, device_id) where revoked_at is null',
    );
    this.addSql('create index devices_org on devices (org_id)');
    this.addSql('create index devices_live_device on devices (device_id) where revoked_at is null');
    // Every bind takes this row lock first, so slot counting and insert are serialized on any database.
    this.addSql('create table device_slot_locks (scope text not null primary key, version integer not null)');
    this.addSql("insert into device_slot_locks (scope, version) values ('appliance', 0)");
  }
}
