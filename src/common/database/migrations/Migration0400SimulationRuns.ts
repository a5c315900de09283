import { PortableMigration } from './portable-migration';

export class Migration0400SimulationRuns extends PortableMigration {
  override up(): void {
    this.addSql(`create table simulation_runs (
      id text not null primary key,
      org_id text not null,
      request_hash text not null,
      engine_version text not null,
      engine_mode text not null,
      runs integer not null,
      seed text not null,
      objective text not null,
      recommended_action text not null,
      expected_value double precision not null,
      confidence double precision not null,
      compute_ms double precision not null,
      created_at text not null
    )`);
    this.addSql('create index simulation_runs_org_created on simulation_runs (org_id, created_at)');
  }
}
