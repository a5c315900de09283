import { PortableMigration } from './portable-migration';

/**
 * A fire call made with an Idempotency-Key records the key's identity on its fire, unique per trigger: a retry
 * that runs again after its daemon died between the fire's commit and the stored answer finds that fire instead of
 * firing a second time.
 */
export class Migration1020TriggerFireIdempotency extends PortableMigration {
  override up(): void {
    this.addSql('alter table trigger_fires add column idempotency_id text null');
    this.addSql(
      'create unique index trigger_fires_idempotency on trigger_fires (trigger_id, idempotency_id)',
    );
  }
}
