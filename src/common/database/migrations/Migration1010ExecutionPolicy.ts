import { PortableMigration } from './portable-migration';

/**
 * Execution policy snapshots (one immutable row per change, numbered per organization) and what an outcome
 * report leaves on a fire beside the realized value: every action's value re-evaluated on the realized variables.
 */
export class Migration1010ExecutionPolicy extends PortableMigration {
  override up(): void {
    this.addSql(`create table execution_policy_snapshots (
      id text not null primary key,
      org_id text not null,
      seq integer not null,
      mode text not null,
      min_outcomes integer not null,
      created_by text null,
      created_at ${this.types.timestamp} not null,
      unique (org_id, seq)
    )`);
    this.addSql('alter table trigger_fires add column realized_action_values text null');
    this.addSql('create index trigger_fires_outcomes on trigger_fires (trigger_id, outcome_at)');
  }
}
