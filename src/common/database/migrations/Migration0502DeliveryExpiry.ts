import { PortableMigration } from './portable-migration';

/**
 * A delivery may carry a deadline after which it is never sent (`decision.execute`: a late execution is worse than
 * none), and the fire it belongs to, so a fire's delivery log can be listed.
 */
export class Migration0502DeliveryExpiry extends PortableMigration {
  override up(): void {
    this.addSql(`alter table webhook_deliveries add column expires_at ${this.types.timestamp} null`);
    this.addSql('alter table webhook_deliveries add column fire_id text null');
    this.addSql('create index webhook_deliveries_fire on webhook_deliveries (fire_id)');
  }
}
