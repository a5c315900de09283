import { PortableMigration } from './portable-migration';

/**
 * The node (host name) whose daemon recorded each egress decision, so the privacy report can name the replicas it
 * counts. Outside the row's hash: the chain's formula stays the one already recorded; rows from before are null.
 */
export class Migration0303EgressDecisionNode extends PortableMigration {
  override up(): void {
    this.addSql('alter table egress_decisions add column node text null');
  }
}
