import { PortableMigration } from './portable-migration';

export class Migration1000Triggers extends PortableMigration {
  override up(): void {
    this.addSql(`create table triggers (
      id text not null primary key,
      org_id text not null,
      name text not null,
      enabled ${this.types.flag} not null,
      condition text not null,
      interval_s integer null,
      catch_up_window_s integer not null default 0,
      cooldown_s integer not null default 0,
      keep_firing_s integer not null default 0,
      simulation text not null,
      webhook_url text null,
      execution_webhook_url text null,
      auto_execute ${this.types.flag} not null,
      execution_max_age_s integer not null,
      plans text not null,
      state text not null,
      pending_since ${this.types.timestamp} null,
      recovering_since ${this.types.timestamp} null,
      last_evaluated_at ${this.types.timestamp} null,
      next_evaluation_at ${this.types.timestamp} null,
      last_fire_id text null,
      last_fired_at ${this.types.timestamp} null,
      last_error text null,
      consecutive_errors integer not null default 0,
      skipped_slots integer not null default 0,
      generation integer not null default 0,
      lease_owner text null,
      lease_until ${this.types.timestamp} null,
      created_at ${this.types.timestamp} not null,
      updated_at ${this.types.timestamp} not null
    )`);
    this.addSql('create index triggers_org on triggers (org_id, id)');
    this.addSql('create index triggers_due on triggers (enabled, next_evaluation_at)');
    this.addSql(`create table trigger_fires (
      id text not null primary key,
      trigger_id text not null references triggers (id) on delete cascade,
      org_id text not null,
      slot text not null,
      fired_at ${this.types.timestamp} not null,
      condition_met ${this.types.flag} not null,
      current_value ${this.types.float} not null,
      run_id text null,
      recommended_action text null,
      expected_value ${this.types.float} null,
      confidence ${this.types.float} null,
      execution_status text null,
      policy_snapshot_id text null,
      prediction text null,
      realized_value ${this.types.float} null,
      realized_variables text null,
      outcome_at ${this.types.timestamp} null,
      unique (trigger_id, slot)
    )`);
    this.addSql('create index trigger_fires_trigger on trigger_fires (trigger_id, id)');
  }
}
