import { PortableMigration } from './portable-migration';

export class Migration0302PrivacyReports extends PortableMigration {
  override up(): void {
    this.addSql(`create table privacy_reports (
      sequence integer not null primary key,
      id text not null unique,
      generated_at text not null,
      sha256 text not null unique,
      previous_report_hash text null,
      document text not null
    )`);
    // One successor per report and one first report: two writers can never both claim the same predecessor.
    this.addSqlFor({
      sqlite: `create unique index privacy_reports_one_successor on privacy_reports (coalesce(previous_report_hash, 'first'))`,
      postgresql: `create unique index privacy_reports_one_successor on privacy_reports ((coalesce(previous_report_hash, 'first')))`,
    });
    this.addSql('create index privacy_reports_generated_at on privacy_reports (generated_at)');
  }
}
