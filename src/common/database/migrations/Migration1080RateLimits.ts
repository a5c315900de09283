import { PortableMigration } from './portable-migration';

/**
 * The counters of rate-limiter-flexible (RateLimiterPostgres's own columns: one row per key and window), which
 * replicas on one PostgreSQL database share; one appliance on SQLite counts in memory and leaves the table empty.
 * They replace the per-event rows of `rate_limit_hits`.
 */
export class Migration1080RateLimits extends PortableMigration {
  override up(): void {
    this.addSql('drop table rate_limit_hits');
    this.addSql(
      'create table rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint null)',
    );
    this.addSql('create index rate_limits_expire on rate_limits (expire)');
  }
}
