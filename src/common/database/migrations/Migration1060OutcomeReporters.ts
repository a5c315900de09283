import { PortableMigration } from './portable-migration';

/**
 * Who reported a fire's outcome, and which roles' reports the execution policy lets count toward calibration.
 * Outcomes reported before this carry no reporter and count for no role.
 */
export class Migration1060OutcomeReporters extends PortableMigration {
  override up(): void {
    this.addSql(
      "alter table execution_policy_snapshots add column outcome_reporter_roles text not null default 'admin,owner'",
    );
    this.addSql('alter table trigger_fires add column reported_by text null');
    this.addSql('alter table trigger_fires add column reported_by_role text null');
  }
}
