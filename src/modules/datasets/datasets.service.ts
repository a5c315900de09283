import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { orphanAgeMs } from '../../common/data-dir';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { requireRole } from '../../common/auth/authorization';
import { Principal } from '../../common/auth/principal';
import type { RowBatch } from '../connectors/connectors.types';
import { fileBytes, StorageQuotaService } from '../storage-quota/storage-quota.service';
import { ColumnSchema } from './column-profile';
import { DatasetRecord } from './dataset.entity';
import { DatasetRepository } from './dataset.repository';
import { DatasetReaders } from './dataset-readers';
import { DatasetShapes } from './dataset-shapes';
import { DatasetFileWriter, WrittenDataset } from './dataset-file-writer';
import { buildFromPlainCsv } from './csv-file-build';
import { DatasetBuildOptions } from './dataset-build-files';
import type { PlainCsvFile } from '../connectors/connectors.types';
import {
  CompactDatasetResponse,
  DatasetResponse,
  DatasetSchemaResponse,
  DatasetSummaryResponse,
  parseSchema,
  StoredFormula,
  toCompactDatasetResponse,
  toDatasetResponse,
  toSchemaResponse,
  toSummaryResponse,
  Visibility,
} from './datasets.dto';
import { queryHints } from './query-hints';
import { ReadOnlyDatabase } from './readonly-database';
import { DATASET_FILE_EXTENSION } from './dataset-store-layout';
import { convertSqliteVersions, SQLITE_FILE_EXTENSION } from './dataset-conversion';

export interface IngestRequest {
  readonly orgId: string;
  readonly datasetName: string;
  readonly visibility: Visibility;
  readonly connectionId: string | null;
  readonly connectionType: string;
  readonly source: Record<string, unknown>;
  readonly createdBy: string | null;
  readonly idempotencyId?: string;
}

export interface ListOptions {
  readonly search?: string;
  readonly compact?: boolean;
  readonly allVersions?: boolean;
}

export interface OpenDataset {
  readonly record: DatasetRecord;
  readonly filePath: string;
  readonly columns: readonly ColumnSchema[];
  readonly formulas: readonly StoredFormula[];
  /** Still the previous SQLite file (its conversion failed at start): typed queries copy it, reports cannot. */
  readonly isPreviousFormat: boolean;
  reader(): Promise<ReadOnlyDatabase>;
}

export class EmptySourceError extends Error {
  constructor() {
    super('The source returned no rows.');
  }
}

/** DuckDB's `.wal`, the previous format's summaries (`-<random>`), SQLite journals, older builds' scratch `.stage`. */
const PARTIAL_FILE = /\.partial(-[0-9a-f]{12})?(\.stage)?(-journal|-wal|-shm|\.wal|\.tmp)?$/;
const VERSION_FILE = /^(ds_[0-9a-f]{24})\.(duckdb|sqlite|summaries\.sqlite)$/;
const OLD_SUMMARIES_FILE = /^ds_[0-9a-f]{24}\.summaries\.sqlite$/;

@Injectable()
export class DatasetsService implements OnModuleInit, OnApplicationShutdown {
  private readonly readers: DatasetReaders;
  private readonly shapes = new DatasetShapes();

  constructor(
    private readonly datasets: DatasetRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly quota: StorageQuotaService,
  ) {
    this.readers = new DatasetReaders(this.queryBudget(), config.queryTimeoutS * 1000);
  }

  /** A build writes finished row groups as it goes: half the query budget held a 2M-row, 8-column build in 64 MB. */
  private buildBudget(shareOfQueryMemory = 1 / 2): { memoryMb: number; tempDir: string } {
    return {
      memoryMb: Math.max(64, Math.floor(this.config.queryMemoryMb * shareOfQueryMemory)),
      tempDir: this.config.queryTempDir,
    };
  }

  // A CSV build streams into its table, so its memory limit mostly caches: 3/8 keeps the daemon under 600 MB at 10M
  // rows, where a quarter hit an allocation DuckDB cannot spill (docs/datasets.md, "CSV files read by DuckDB").
  private csvBuildBudget(): DatasetBuildOptions {
    return { ...this.buildBudget(3 / 8), threads: this.config.queryThreads };
  }

  private queryBudget(): { memoryMb: number; threads: number; tempDir: string } {
    return {
      memoryMb: this.config.queryMemoryMb,
      threads: this.config.queryThreads,
      tempDir: this.config.queryTempDir,
    };
  }

  async onModuleInit(): Promise<void> {
    this.quota.registerSource('datasets', (orgId) => this.bytesOnDisk(orgId));
    mkdirSync(this.config.datasetsDir, { recursive: true, mode: 0o700 });
    this.removePartialFiles();
    await this.removeUncataloguedFiles();
    this.removeOldSummaries();
    await convertSqliteVersions({
      datasetsDir: this.config.datasetsDir,
      repository: this.datasets,
      logger: this.logger,
      build: this.buildBudget(),
    });
  }

  private removeOldSummaries(): void {
    for (const name of readdirSync(this.config.datasetsDir)) {
      if (OLD_SUMMARIES_FILE.test(name)) rmSync(join(this.config.datasetsDir, name), { force: true });
    }
  }

  /** On a datasets dir shared by replicas another node may be between writing a file and cataloguing it. */
  private minAgeBeforeRemovalMs(): number {
    return orphanAgeMs(this.config);
  }

  private removePartialFiles(): void {
    const minAgeMs = this.minAgeBeforeRemovalMs();
    for (const name of readdirSync(this.config.datasetsDir)) {
      if (!PARTIAL_FILE.test(name)) continue;
      const path = join(this.config.datasetsDir, name);
      const stats = statSync(path, { throwIfNoEntry: false });
      if (stats === undefined || (minAgeMs > 0 && Date.now() - stats.mtimeMs < minAgeMs)) continue;
      rmSync(path, { force: true });
    }
  }

  /** A kill between the rename and the catalogue insert leaves a file nothing lists, counts or deletes. */
  private async removeUncataloguedFiles(): Promise<void> {
    const catalogued = new Set(await this.datasets.allIds());
    const minAgeMs = this.minAgeBeforeRemovalMs();
    const removed: string[] = [];
    for (const name of readdirSync(this.config.datasetsDir)) {
      const id = VERSION_FILE.exec(name)?.[1];
      if (id === undefined || catalogued.has(id)) continue;
      const path = join(this.config.datasetsDir, name);
      if (minAgeMs > 0 && Date.now() - statSync(path).ctimeMs < minAgeMs) continue;
      rmSync(path, { force: true });
      removed.push(name);
    }
    if (removed.length > 0) {
      this.logger.info(
        { event: 'dataset_orphans_removed', files: removed },
        'removed dataset files that no catalogue row names',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.readers.closeAll();
  }

  /** The file is durable before its catalogue row exists, so a listed dataset always has its rows. */
  async ingest(
    request: IngestRequest,
    batches: AsyncIterable<RowBatch | readonly Record<string, unknown>[]>,
    plainCsv?: PlainCsvFile,
  ): Promise<DatasetRecord> {
    await this.quota.assertRoomFor(request.orgId, 1);
    const id = `ds_${randomBytes(12).toString('hex')}`;
    const fileName = `${id}${DATASET_FILE_EXTENSION}`;
    const started = process.hrtime.bigint();
    const path = join(this.config.datasetsDir, fileName);
    const written =
      (plainCsv && (await buildFromPlainCsv(plainCsv, path, this.csvBuildBudget()))) ??
      (await this.writeBatches(path, batches));
    const now = new Date().toISOString();
    const record: DatasetRecord = {
      id,
      orgId: request.orgId,
      datasetName: request.datasetName,
      version: 0,
      visibility: request.visibility,
      connectionId: request.connectionId,
      connectionType: request.connectionType,
      source: JSON.stringify(request.source),
      fileName,
      rowCount: written.rowCount,
      columnCount: written.columns.length,
      schemaJson: JSON.stringify({ columns: written.columns, queryHints: queryHints(written.columns) }),
      formulasJson: '[]',
      createdBy: request.createdBy,
      idempotencyId: request.idempotencyId ?? null,
      ingestedAt: now,
      updatedAt: now,
    };
    try {
      // The file is not in the catalogue yet, so the check counts it once: as the bytes this version adds.
      await this.quota.assertRoomFor(request.orgId, written.bytes);
      await this.insertNextVersion(record);
    } catch (error) {
      rmSync(join(this.config.datasetsDir, fileName), { force: true });
      throw error;
    }
    this.logger.info(
      {
        event: 'dataset_ingested',
        dataset_id: id,
        org_id: request.orgId,
        dataset_name: request.datasetName,
        version: record.version,
        rows: record.rowCount,
        columns: record.columnCount,
        bytes: written.bytes,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
      },
      'dataset ingested',
    );
    return record;
  }

  private async writeBatches(
    path: string,
    batches: AsyncIterable<RowBatch | readonly Record<string, unknown>[]>,
  ): Promise<WrittenDataset> {
    const writer = await DatasetFileWriter.create(path, this.buildBudget());
    try {
      for await (const batch of batches) await writer.addBatch(batch);
      if (writer.rows === 0) throw new EmptySourceError();
      return await writer.finish();
    } catch (error) {
      await writer.abort();
      throw error;
    }
  }

  private async bytesOnDisk(orgId: string): Promise<number> {
    const owned = new Set(
      (await this.datasets.fileNamesOfOrg(orgId)).map((name) => name.slice(0, name.indexOf('.'))),
    );
    if (owned.size === 0) return 0;
    let total = 0;
    for (const name of await readdir(this.config.datasetsDir)) {
      if (owned.has(name.slice(0, name.indexOf('.'))))
        total += await fileBytes(join(this.config.datasetsDir, name));
    }
    return total;
  }

  ingestedBy(orgId: string, idempotencyId: string): Promise<DatasetRecord | null> {
    return this.datasets.findByIdempotency(orgId, idempotencyId);
  }

  private async insertNextVersion(record: DatasetRecord): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      record.version = await this.datasets.nextVersion(record.orgId, record.datasetName);
      try {
        await this.datasets.insert(record);
        return;
      } catch (error) {
        // Another version took the number; a version with this idempotency operation is not retried.
        if (attempt >= 5 || !/unique/i.test(String(error)) || /idempotency/i.test(String(error))) throw error;
      }
    }
  }

  async list(
    principal: Principal,
    options: ListOptions = {},
  ): Promise<(DatasetResponse | CompactDatasetResponse)[]> {
    const records = await this.datasets.list({
      orgId: principal.orgId,
      search: options.search,
      latestOnly: !options.allVersions,
    });
    return records.map((r) =>
      options.compact ? toCompactDatasetResponse(r) : toDatasetResponse(r, principal.orgId),
    );
  }

  async get(principal: Principal, id: string): Promise<DatasetResponse> {
    return toDatasetResponse(await this.visible(principal.orgId, id), principal.orgId);
  }

  async summary(principal: Principal, id: string): Promise<DatasetSummaryResponse> {
    return toSummaryResponse(await this.visible(principal.orgId, id));
  }

  async schema(principal: Principal, id: string): Promise<DatasetSchemaResponse> {
    const record = await this.visible(principal.orgId, id);
    return { ...toSchemaResponse(record), summaries: [] };
  }

  async versions(principal: Principal, id: string): Promise<DatasetResponse[]> {
    const record = await this.visible(principal.orgId, id);
    const all = await this.datasets.list({
      orgId: record.orgId,
      datasetName: record.datasetName,
      latestOnly: false,
    });
    return all.filter((r) => r.orgId === record.orgId).map((r) => toDatasetResponse(r, principal.orgId));
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const record = await this.owned(principal, id);
    await this.datasets.delete(record.id);
    this.readers.evict(record.id);
    rmSync(join(this.config.datasetsDir, record.fileName), { force: true });
    this.logger.info(
      { event: 'dataset_deleted', dataset_id: record.id, org_id: record.orgId },
      'dataset deleted',
    );
  }

  async open(orgId: string, id: string): Promise<OpenDataset> {
    const record = await this.visible(orgId, id);
    const filePath = join(this.config.datasetsDir, record.fileName);
    const { columns, formulas } = this.shapes.of(record);
    return {
      record,
      filePath,
      columns,
      formulas,
      isPreviousFormat: filePath.endsWith(SQLITE_FILE_EXTENSION),
      reader: () => this.readers.get(record.id, filePath, columns),
    };
  }

  private async visible(orgId: string, id: string): Promise<DatasetRecord> {
    const record = await this.datasets.findVisible(orgId, id, true);
    if (!record) throw new AppError('dataset_not_found');
    return record;
  }

  private async owned(principal: Principal, id: string): Promise<DatasetRecord> {
    const record = await this.visible(principal.orgId, id);
    if (record.orgId !== principal.orgId) {
      throw new AppError('forbidden', 'Only the organization that owns a shared dataset can change it.');
    }
    requireRole(principal, 'member', 'Changing a dataset needs the member role or higher.');
    return record;
  }

  async ownedForUpdate(principal: Principal, id: string): Promise<DatasetRecord> {
    return this.owned(principal, id);
  }

  columnsOf(record: DatasetRecord): readonly ColumnSchema[] {
    return parseSchema(record).columns;
  }

  async replaceFormulas(record: DatasetRecord, formulas: readonly StoredFormula[]): Promise<void> {
    const columns = parseSchema(record).columns;
    const withFormulas: ColumnSchema[] = [
      ...columns,
      ...formulas.map((f) => ({
        name: f.name,
        type: f.type,
        role: f.type === 'number' ? ('measure' as const) : ('dimension' as const),
        nullCount: 0,
        distinctCount: 0,
        distinctEstimated: false,
        min: null,
        max: null,
        sampleValues: [],
      })),
    ];
    const schemaJson = JSON.stringify({ columns, queryHints: queryHints(withFormulas) });
    await this.datasets.updateFormulas(
      record.id,
      JSON.stringify(formulas),
      schemaJson,
      new Date().toISOString(),
    );
  }
}
