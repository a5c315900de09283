import { PortableMigration } from './portable-migration';

/** Organizations, users, sessions and single-use mail tokens. Timestamps are RFC 3339 UTC text. */
export class Migration0100Accounts extends PortableMigration {
  override up(): void {
    this.addSql(`create table organizations (
      id text not null primary key,
      name text not null,
      is_operator ${this.types.flag} not null default ${this.dialect === 'sqlite' ? '0' : 'false'},
      created_at text not null,
      updated_at text not null
    )`);
    // At most one operator organization, whatever the race between sign-up and provisioning.
    this.addSqlFor({
      sqlite:
        'create unique index organizations_one_operator on organizations (is_operator) where is_operator = 1',
      postgresql:
        'create unique index organizations_one_operator on organizations (is_operator) where is_operator',
    });
    this.addSql(`create table users (
      id text not null primary key,
      org_id text not null references organizations (id),
      email text not null,
      name text not null,
      role text not null,
      password_hash text null,
      email_verified_at text null,
      created_at text not null,
      updated_at text not null
    )`);
    this.addSql('create unique index users_email on users (email)');
    this.addSql('create index users_org on users (org_id)');
    this.addSql(`create table sessions (
      id text not null primary key,
      user_id text not null references users (id),
      ip text null,
      created_at text not null,
      expires_at text not null,
      revoked_at text null
    )`);
    this.addSql('create index sessions_user on sessions (user_id)');
    this.addSql(`create table auth_tokens (
      id text not null primary key,
      user_id text not null references users (id),
      purpose text not null,
      token_hash text not null,
      created_at text not null,
      expires_at text not null,
      used_at text null
    )`);
    this.addSql('create unique index auth_tokens_hash on auth_tokens (token_hash)');
  }
}
