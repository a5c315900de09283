import { PortableMigration } from './portable-migration';

export class Migration0300EgressDecisions extends PortableMigration {
  override up(): void {
    this.addSql(`create table egress_decisions (
      seq integer not null primary key,
      decided_at text not null,
      purpose text not null,
      org_id text null,
      host text not null,
      port integer not null,
      address text null,
      allowed boolean not null,
      reason text not null,
      prev_hash text not null,
      hash text not null unique
    )`);
    this.addSql('create index egress_decisions_decided_at on egress_decisions (decided_at)');
    // The log is evidence: the database itself refuses to rewrite or remove a decision.
    if (this.dialect === 'postgresql') {
      this.addSql(`create function egress_decisions_append_only() returns trigger language plpgsql as $$
        begin raise exception 'egress_decisions is append-only'; end $$`);
      this.addSql(`create trigger egress_decisions_no_change before update or delete on egress_decisions
        for each row execute function egress_decisions_append_only()`);
      return;
    }
    this.addSql(`create trigger egress_decisions_no_update before update on egress_decisions
      begin select raise(abort, 'egress_decisions is append-only'); end`);
    this.addSql(`create trigger egress_decisions_no_delete before delete on egress_decisions
      begin select raise(abort, 'egress_decisions is append-only'); end`);
  }
}
