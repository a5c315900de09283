import { PortableMigration } from './portable-migration';

/** What an idempotent POST creates, each on its own table; fires carry theirs since Migration1020. */
const CREATED_ROWS = ['jobs', 'api_keys', 'connectors', 'datasets', 'triggers'] as const;

/**
 * An Idempotency-Key stands for one operation (`idempotency_keys.operation_id`), which the route records on the row
 * it creates, in the transaction that creates it, unique per organization: a retry after its daemon died between
 * that commit and the stored answer finds the row instead of creating a second one. Fires recorded the key's hash
 * in `idempotency_id`; from now on it holds the operation id like the rest.
 */
export class Migration1030IdempotentCreations extends PortableMigration {
  override up(): void {
    this.addSql('alter table idempotency_keys add column operation_id text null');
    for (const table of CREATED_ROWS) {
      this.addSql(`alter table ${table} add column idempotency_id text null`);
      this.addSql(`create unique index ${table}_idempotency on ${table} (org_id, idempotency_id)`);
    }
  }
}
