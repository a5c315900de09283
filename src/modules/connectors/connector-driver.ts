import { EgressGuard } from '../egress/egress.types';
import type { ParseLimits } from './formats';
import { batchRows, headOfBatch, RowBatch } from './formats/records';
import { ImportArea } from './local-path';

/** What a driver may use: the egress guard (its only way out), its organization's part of the import dir, and limits. */
export interface DriverContext {
  readonly orgId: string;
  readonly egress: EgressGuard;
  /** Where `file_path`, the sqlite `path` and credential files may be read from (after realpath). */
  readonly imports: ImportArea;
  /** Private scratch space for downloads (object stores stream large objects to disk here). */
  readonly scratchDir: string;
  /** Rows per batch yielded by readRows. */
  readonly batchSize: number;
  /** What parsing one file may use (file and object-store connectors). */
  readonly parseLimits: ParseLimits;
  readonly signal?: AbortSignal;
  /** Non-fatal findings while reading (for example flattening collisions); each message once. */
  readonly warn: (message: string) => void;
}

/** A successful test as a driver sees it; failures are thrown as ConnectorError. */
export interface DriverTestOutcome {
  readonly message: string;
  /** Extra facts shown with the result (records parsed, source, server version...). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface BrowseItem {
  readonly name: string;
  /** table, view, sheet, object, field, collection... */
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
 * Which rows to read. SQL types read `table` (optionally in `schema`) whole, or run one read-only `query`; files,
 * objects and REST ignore both (their config says what to read) except `sheet`, which overrides an Excel sheet;
 * Redis reads the keys of `pattern`; Elasticsearch the documents of `index`; Neo4j the nodes of `label` or a
 * read-only `cypher` query; repositories and archives read the data file at `path`.
 */
export interface RowSelection {
  readonly table?: string;
  readonly schema?: string;
  readonly query?: string;
  readonly sheet?: string | number;
  /** Key-value stores: the key pattern to read (`sale:*`) and how many matching keys at most. */
  readonly pattern?: string;
  readonly maxKeys?: number;
  /** Repositories and archives: the data file to read, and at which git ref. */
  readonly path?: string;
  readonly ref?: string;
  /** Search engines: the index whose documents are read. */
  readonly index?: string;
  /** Graphs: the label whose nodes are read, or one read-only Cypher query. */
  readonly label?: string;
  readonly cypher?: string;
  /** Stop after this many rows (previews); without it everything is read. */
  readonly limit?: number;
}

/**
 * One implementation per connector type (drivers/<type>.ts). Every network connection goes through `ctx.egress`;
 * every failure is a ConnectorError with a documented error_type.
 */
export interface ConnectorDriver<C> {
  test(config: C, ctx: DriverContext): Promise<DriverTestOutcome>;
  browse(config: C, ctx: DriverContext): Promise<BrowseResult>;
  /** Streams records in batches, in the source's order (SQL: a `table` or read-only `query`; REST: pages; files/objects: parsed records). */
  readRows(config: C, selection: RowSelection, ctx: DriverContext): AsyncIterable<Record<string, unknown>[]>;
  /** readRows for a reader that takes text tables too (the dataset ingest); drivers without it answer readRows. */
  readTables?(config: C, selection: RowSelection, ctx: DriverContext): AsyncIterable<RowBatch>;
}

/** Caps a batch stream (records, or text tables) at `limit` rows, stopping the source early. */
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
      // headOfBatch keeps the kind: records stay records, a text table a text table.
      yield headOfBatch(batch, left) as B;
      return;
    }
    left -= rows;
    yield batch;
  }
}
