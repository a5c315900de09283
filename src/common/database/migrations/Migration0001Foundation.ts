import { PortableMigration } from './portable-migration';

export class Migration0001Foundation extends PortableMigration {
  override up(): void {
    this.addSql(`create table appliance_state (
      key text not null primary key,
      value text not null,
      updated_at text not null
    )`);
  }
}
