import { PortableMigration } from './portable-migration';

/**
 * Events counted by the rate limits that replicas on one PostgreSQL database share (login failures, reset mails,
 * inline connector previews); one appliance on SQLite counts in memory and leaves the table empty.
 */
export class Migration1050RateLimitHits extends PortableMigration {
  override up(): void {
    this.addSql(
      'create table rate_limit_hits (counter text not null, key text not null, at bigint not null)',
    );
    this.addSql('create index rate_limit_hits_key on rate_limit_hits (counter, key, at)');
    this.addSql('create index rate_limit_hits_age on rate_limit_hits (counter, at)');
  }
}
