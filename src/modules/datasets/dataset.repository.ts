import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/knex';
import { dialectOf } from '../../common/database/dialect';
import { EntityRows } from '../../common/database/entity-rows';
import { PreparedWrite } from '../../common/database/prepared-write';
import { DatasetRecord, DatasetSchema } from './dataset.entity';
import { parseSchema } from './datasets.dto';

export interface DatasetListFilter {
  readonly orgId: string;
  readonly search?: string;
  readonly datasetName?: string;
  readonly latestOnly: boolean;
}

function matchesSearch(record: DatasetRecord, words: readonly string[]): boolean {
  const names = [record.datasetName, ...parseSchema(record).columns.map((c) => c.name)].map((n) =>
    n.toLowerCase(),
  );
  return words.every((word) => names.some((name) => name.includes(word)));
}

@Injectable()
export class DatasetRepository {
  /** Prepared once and read as the record: hydrating through the ORM cost more than the query itself. */
  private byId?: { readonly statement: PreparedWrite; readonly records: EntityRows<DatasetRecord> };

  constructor(private readonly em: EntityManager) {}

  /** On PostgreSQL an advisory lock taken without waiting: one replica converts, a dead one drops it with its session. */
  async whileHoldingFileLease(datasetId: string, work: () => Promise<void>): Promise<boolean> {
    const em = this.em.fork();
    if (dialectOf(em.getPlatform()) !== 'postgresql') {
      await work();
      return true;
    }
    return em.transactional(async (tx) => {
      const [lock] = await tx.execute<{ held: boolean }[]>(
        'select pg_try_advisory_xact_lock(hashtext(?)) as held',
        [`dataset-file:${datasetId}`],
      );
      if (!lock?.held) return false;
      await work();
      return true;
    });
  }

  /** Only a row still naming `from` changes: another replica may have been first. */
  async replaceFileName(id: string, from: string, to: string): Promise<void> {
    await this.em
      .fork()
      .getConnection()
      .execute('update datasets set file_name = ? where id = ? and file_name = ?', [to, id, from]);
  }

  async withFileSuffix(suffix: string): Promise<DatasetRecord[]> {
    return this.em
      .fork()
      .find(DatasetSchema, { fileName: { $like: `%${suffix}` } }, { orderBy: { id: 'asc' } });
  }

  async insert(record: DatasetRecord): Promise<void> {
    const em = this.em.fork();
    em.create(DatasetSchema, record);
    await em.flush();
  }

  async nextVersion(orgId: string, datasetName: string): Promise<number> {
    const rows = await this.em
      .fork()
      .getConnection()
      .execute<{ version: number | null }[]>(
        'select max(version) as version from datasets where org_id = ? and dataset_name = ?',
        [orgId, datasetName],
      );
    return (rows[0]?.version ?? 0) + 1;
  }

  findByIdempotency(orgId: string, idempotencyId: string): Promise<DatasetRecord | null> {
    return this.em.fork().findOne(DatasetSchema, { orgId, idempotencyId });
  }

  async findVisible(orgId: string, id: string, includeShared: boolean): Promise<DatasetRecord | null> {
    const { statement, records } = this.lookupById();
    const [row] = await statement.returning<Record<string, unknown>>([id]);
    if (!row) return null;
    const record = records.entityOf(row);
    if (record.orgId === orgId || (includeShared && record.visibility === 'shared')) return record;
    return null;
  }

  private lookupById(): { statement: PreparedWrite; records: EntityRows<DatasetRecord> } {
    if (!this.byId) {
      const records = new EntityRows(this.em, DatasetSchema);
      this.byId = {
        records,
        statement: new PreparedWrite(this.em, `select ${records.fields} from datasets where id = ?`),
      };
    }
    return this.byId;
  }

  async list(filter: DatasetListFilter): Promise<DatasetRecord[]> {
    const records = await this.em.fork().find(
      DatasetSchema,
      {
        $or: [{ orgId: filter.orgId }, { visibility: 'shared' }],
        ...(filter.datasetName !== undefined ? { datasetName: filter.datasetName } : {}),
      },
      { orderBy: { datasetName: 'asc', version: 'desc', id: 'asc' } },
    );
    const words = (filter.search ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '');
    const seen = new Set<string>();
    return records.filter((record) => {
      if (words.length > 0 && !matchesSearch(record, words)) return false;
      if (!filter.latestOnly) return true;
      const key = `${record.orgId}\u0000${record.datasetName}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  async updateFormulas(
    id: string,
    formulasJson: string,
    schemaJson: string,
    updatedAt: string,
  ): Promise<void> {
    await this.em.fork().nativeUpdate(DatasetSchema, { id }, { formulasJson, schemaJson, updatedAt });
  }

  async fileNamesOfOrg(orgId: string): Promise<string[]> {
    const records = await this.em.fork().find(DatasetSchema, { orgId }, { fields: ['fileName'] });
    return records.map((record) => record.fileName);
  }

  async allIds(): Promise<string[]> {
    const records = await this.em.fork().find(DatasetSchema, {}, { fields: ['id'] });
    return records.map((record) => record.id);
  }

  async delete(id: string): Promise<void> {
    await this.em.fork().nativeDelete(DatasetSchema, { id });
  }
}
