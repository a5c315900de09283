import { PortableMigration } from './portable-migration';

/** The inputs a run read from datasets, with their provenance (issue 38); runs before this read none. */
export class Migration1070RunInputs extends PortableMigration {
  override up(): void {
    this.addSql('alter table simulation_runs add column inputs text null');
  }
}
