import { EgressGuard } from '../egress/egress.types';
import type { ParseLimits } from './formats';
import type { PlainCsvFile } from './formats/plain-csv';
import { batchRows, headOfBatch, RowBatch } from './formats/records';
import { ImportArea } from './local-path';

// The egress guard is a driver's only way out.
export interface DriverContext {
  readonly orgId: string;
  readonly egress: EgressGuard;
  /** Where `file_path`, the sqlite `path` and credential files may be read from (after realpath). */
  readonly imports: ImportArea;
  readonly scratchDir: string;
  readonly batchSize: number;
  readonly parseLimits: ParseLimits;
  readonly signal?: AbortSignal;
  readonly warn: (message: string) => void;
}

export interface DriverTestOutcome {
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface BrowseItem {
  readonly name: string;
  readonly kind: string;
  readonly schema?: string;
  readonly type?: string;
  readonly columns?: readonly { readonly name: string; readonly type: string }[];
  readonly rows?: number;
  readonly size?: number;
}

export interface BrowseResult {
  readonly items: readonly BrowseItem[];
  readonly total: number;
  readonly message: string;
  readonly discovery: Readonly<Record<string, unknown>>;
}

/**
 * Which rows to read: SQL a `table` or a read-only `query`; Excel a `sheet`; Redis a key `pattern`; Elasticsearch an
 * `index`; Neo4j a `label` or `cypher`; repositories and archives the file at `path`. Others read their config.
 */
export interface RowSelection {
  readonly table?: string;
  readonly schema?: string;
  readonly query?: string;
  readonly sheet?: string | number;
  readonly pattern?: string;
  readonly maxKeys?: number;
  readonly path?: string;
  readonly ref?: string;
  readonly index?: string;
  readonly label?: string;
  readonly cypher?: string;
  readonly limit?: number;
}

export interface ConnectorDriver<C> {
  test(config: C, ctx: DriverContext): Promise<DriverTestOutcome>;
  browse(config: C, ctx: DriverContext): Promise<BrowseResult>;
  readRows(config: C, selection: RowSelection, ctx: DriverContext): AsyncIterable<Record<string, unknown>[]>;
  /** readRows for a reader that takes text tables too (the dataset ingest); drivers without it answer readRows. */
  readTables?(config: C, selection: RowSelection, ctx: DriverContext): AsyncIterable<RowBatch>;
  /** The source as a local CSV file DuckDB may read itself, when it is one (see PlainCsvFile). */
  plainCsv?(config: C, selection: RowSelection, ctx: DriverContext): Promise<PlainCsvFile | undefined>;
}

export async function* limitBatches<B extends RowBatch>(
  source: AsyncIterable<B>,
  limit: number | undefined,
): AsyncGenerator<B> {
  if (limit === undefined) {
    yield* source;
    return;
  }
  let left = limit;
  if (left <= 0) return;
  for await (const batch of source) {
    const rows = batchRows(batch);
    if (rows >= left) {
      yield headOfBatch(batch, left) as B;
      return;
    }
    left -= rows;
    yield batch;
  }
}
