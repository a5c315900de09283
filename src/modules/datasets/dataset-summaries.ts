import { randomBytes } from 'node:crypto';
import { existsSync, fsyncSync, openSync, closeSync, renameSync, rmSync } from 'node:fs';
import sqlite3 from 'sqlite3';
import { ColumnSchema } from './column-profile';
import { DatasetReaders } from './dataset-readers';
import { ReadOnlyDatabase } from './readonly-database';
import { DATA_TABLE, quoteIdentifier } from './sql-identifiers';
import { isNumericType } from './value-kinds';

/**
 * A non-numeric dimension (text, date, boolean) with at most this many distinct values in its ingest profile gets a
 * summary. Past a few thousand the profile's count is an estimate within about 1%, which is close enough for a
 * cost cap: the summary's rows come from SQLite, never from the profile.
 */
export const SUMMARY_MAX_DISTINCT = 10_000;

export const SUMMARY_FUNCTIONS = ['sum', 'avg', 'count', 'min', 'max'] as const;
export type SummaryFunction = (typeof SUMMARY_FUNCTIONS)[number];

/** The summary table's column holding `function(measure)` over one group. */
export function summaryColumn(fn: SummaryFunction, measure: string): string {
  return `${fn}:${measure}`;
}

export const SUMMARY_KEY = 'key';
export const SUMMARY_ROWS = 'rows';
const CATALOG = 'summary_catalog';

/** Summaries of one dataset version that are complete and may answer queries. */
export interface ReadySummaries {
  /** Dimension name to its summary table. */
  readonly tables: ReadonlyMap<string, string>;
  readonly measures: ReadonlySet<string>;
  reader(): Promise<ReadOnlyDatabase>;
}

export interface SummaryPlan {
  readonly dimensions: readonly string[];
  readonly measures: readonly string[];
}

/** Which columns of a dataset get summaries: low-cardinality non-numeric dimensions, and every numeric measure. */
export function planSummaries(columns: readonly ColumnSchema[]): SummaryPlan {
  return {
    dimensions: columns
      .filter(
        (c) =>
          (c.role === 'dimension' || c.role === 'time') &&
          !isNumericType(c.type) &&
          c.distinctCount <= SUMMARY_MAX_DISTINCT,
      )
      .map((c) => c.name),
    measures: columns.filter((c) => c.role === 'measure' && isNumericType(c.type)).map((c) => c.name),
  };
}

function summarySelect(dimension: string, measures: readonly string[], source: string): string {
  const outputs = [
    `${quoteIdentifier(dimension)} as ${quoteIdentifier(SUMMARY_KEY)}`,
    `count(*) as ${quoteIdentifier(SUMMARY_ROWS)}`,
  ];
  for (const measure of measures) {
    for (const fn of SUMMARY_FUNCTIONS) {
      outputs.push(`${fn}(${quoteIdentifier(measure)}) as ${quoteIdentifier(summaryColumn(fn, measure))}`);
    }
  }
  // The same GROUP BY shape as a direct query, so SQLite visits each group's rows in the same order.
  return `select ${outputs.join(', ')} from ${source} group by ${quoteIdentifier(dimension)}`;
}

function connect(file: string): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(
      file,
      sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_URI,
      (error) => (error ? reject(error) : resolve(db)),
    );
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

function uriPath(file: string): string {
  return file.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function sqlText(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/**
 * Per-dimension summary tables of immutable dataset versions, kept in a file beside the dataset's
 * (`<id>.summaries.sqlite`), so the dataset file itself is never written after it is published. A summary is
 * computed by SQLite with the same GROUP BY a direct query runs, over the dataset file attached read-only, into a
 * `.partial-<random>` file that is synced and then renamed: a file under the final name is always complete. Builds run one
 * at a time on libuv's thread pool (node-sqlite3), never on the request path. Replicas sharing the datasets dir build
 * a version's summaries once: each build holds the version's lease (`exclusive`); a replica that needs summaries
 * another is building answers without them meanwhile and finds the file when the build is done.
 */
export class DatasetSummaries {
  private readonly queue: { id: string; datasetFile: string; plan: SummaryPlan }[] = [];
  private readonly pending = new Set<string>();
  private readonly ready = new Map<string, Promise<ReadySummaries | null>>();
  private running: Promise<void> | null = null;
  private stopped = false;

  /**
   * `exclusive` runs a build while holding the version's build lease and says whether it ran (false: another replica
   * holds it, and its file appears when that build ends). Alone on its datasets dir, a daemon just runs the build.
   */
  constructor(
    private readonly readers: DatasetReaders,
    private readonly onError: (id: string, error: unknown) => void,
    private readonly exclusive: (id: string, build: () => Promise<void>) => Promise<boolean> = async (
      _id,
      build,
    ) => {
      await build();
      return true;
    },
  ) {}

  static fileFor(datasetFile: string): string {
    return datasetFile.replace(/\.sqlite$/, '') + '.summaries.sqlite';
  }

  /**
   * The complete summaries of a dataset version, or null while they are missing (then a build is queued, which
   * covers versions ingested before a restart whose summaries were lost).
   */
  async find(
    id: string,
    datasetFile: string,
    columns: readonly ColumnSchema[],
  ): Promise<ReadySummaries | null> {
    const known = this.ready.get(id);
    if (known) return known;
    const file = DatasetSummaries.fileFor(datasetFile);
    if (!existsSync(file)) {
      this.schedule(id, datasetFile, columns);
      return null;
    }
    const loading = this.load(id, file);
    this.ready.set(id, loading);
    loading.catch(() => this.ready.delete(id));
    return loading;
  }

  /** Queues a build; returns at once. */
  schedule(id: string, datasetFile: string, columns: readonly ColumnSchema[]): void {
    if (this.stopped || this.pending.has(id)) return;
    const plan = planSummaries(columns);
    if (plan.dimensions.length === 0) return;
    this.pending.add(id);
    this.queue.push({ id, datasetFile, plan });
    this.running ??= this.drain();
  }

  /** Dimensions whose summaries are ready (an empty list queues a build if none is underway). */
  async readyDimensions(
    id: string,
    datasetFile: string,
    columns: readonly ColumnSchema[],
  ): Promise<string[]> {
    const summaries = await this.find(id, datasetFile, columns);
    return summaries ? [...summaries.tables.keys()] : [];
  }

  forget(id: string, datasetFile: string): void {
    this.ready.delete(id);
    this.readers.evict(`${id}#summaries`);
    rmSync(DatasetSummaries.fileFor(datasetFile), { force: true });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.running;
  }

  private async load(id: string, file: string): Promise<ReadySummaries | null> {
    const reader = await this.readers.get(`${id}#summaries`, file);
    const rows = await reader.all<{ dimension: string; table_name: string; measures: string }>(
      `select dimension, table_name, measures from ${CATALOG}`,
    );
    return {
      tables: new Map(rows.map((r) => [r.dimension, r.table_name])),
      measures: new Set(rows.length > 0 ? (JSON.parse(rows[0].measures) as string[]) : []),
      reader: () => this.readers.get(`${id}#summaries`, file),
    };
  }

  private async drain(): Promise<void> {
    for (let job = this.queue.shift(); job && !this.stopped; job = this.queue.shift()) {
      try {
        const { datasetFile, plan } = job;
        // Under the lease the file may be there already: another replica held the lease before and finished.
        await this.exclusive(job.id, () =>
          existsSync(DatasetSummaries.fileFor(datasetFile))
            ? Promise.resolve()
            : this.build(datasetFile, plan),
        );
      } catch (error) {
        this.onError(job.id, error);
      } finally {
        this.pending.delete(job.id);
      }
    }
    this.running = null;
  }

  private async build(datasetFile: string, plan: SummaryPlan): Promise<void> {
    const file = DatasetSummaries.fileFor(datasetFile);
    // A name of its own: replicas sharing the datasets dir may build the same version's summaries at once, and
    // with one shared name one would remove the other's file and rename a half-built one into place.
    const partial = `${file}.partial-${randomBytes(6).toString('hex')}`;
    const db = await connect(partial);
    try {
      await exec(db, 'pragma journal_mode = off; pragma synchronous = off');
      await exec(db, `attach database ${sqlText(`file:${uriPath(datasetFile)}?mode=ro`)} as source`);
      await exec(
        db,
        `create table ${CATALOG} (dimension text primary key, table_name text not null, measures text not null)`,
      );
      for (const [index, dimension] of plan.dimensions.entries()) {
        if (this.stopped) throw new Error('summary build stopped');
        const table = `summary_${index}`;
        await exec(
          db,
          `create table ${table} as ${summarySelect(dimension, plan.measures, `source.${DATA_TABLE}`)};` +
            `insert into ${CATALOG} values (${sqlText(dimension)}, ${sqlText(table)}, ${sqlText(JSON.stringify(plan.measures))})`,
        );
      }
      await exec(db, 'detach database source; pragma journal_mode = delete');
    } catch (error) {
      await close(db);
      rmSync(partial, { force: true });
      throw error;
    }
    await close(db);
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // A version deleted while its summaries were built must not get them back.
    if (!existsSync(datasetFile)) {
      rmSync(partial, { force: true });
      return;
    }
    renameSync(partial, file);
  }
}
