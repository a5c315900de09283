import { PortableMigration } from './portable-migration';

/** The dataset catalogue: one row per immutable dataset version; the rows themselves live in their own file. */
export class Migration0700Datasets extends PortableMigration {
  override up(): void {
    this.addSql(`create table datasets (
      id text not null primary key,
      org_id text not null,
      dataset_name text not null,
      version integer not null,
      visibility text not null,
      connection_id text null,
      connection_type text not null,
      source text not null,
      file_name text not null,
      row_count integer not null,
      column_count integer not null,
      schema_json text not null,
      formulas_json text not null,
      created_by text null,
      ingested_at text not null,
      updated_at text not null
    )`);
    this.addSql('create unique index datasets_org_name_version on datasets (org_id, dataset_name, version)');
    this.addSql('create index datasets_visibility on datasets (visibility)');
  }
}
