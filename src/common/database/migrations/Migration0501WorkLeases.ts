import { PortableMigration } from './portable-migration';

/**
 * Jobs and outbox deliveries are held under a lease naming the replica that holds it, so several daemons on one
 * database never take each other's work and a dead one's work is taken over when its leases run out.
 */
export class Migration0501WorkLeases extends PortableMigration {
  override up(): void {
    this.addSql('alter table jobs add column lease_owner text null');
    this.addSql(`alter table jobs add column lease_until ${this.types.timestamp} null`);
    this.addSql('alter table webhook_deliveries add column lease_owner text null');
  }
}
