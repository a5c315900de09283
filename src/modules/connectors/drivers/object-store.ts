import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ObjectParseOptions } from '../connector-config';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  DriverTestOutcome,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { FileType, inferFileType } from '../file-types';
import { describeFileInThread, readFileBatchesInThread } from '../formats/parse-thread';
import { isTextTable, RowBatch } from '../formats/records';
import {
  fileBrowseItems,
  fileDiscovery,
  formatOptions,
  parseRun,
  readFileInThread,
  readTablesInThread,
} from './file';

export interface ObjectStore<C extends ObjectParseOptions> {
  readonly label: (config: C) => string;
  readonly objectName: (config: C) => string;
  download(config: C, ctx: DriverContext): Promise<Readable>;
  listSiblings(config: C, ctx: DriverContext): Promise<BrowseItem[]>;
}

export function objectFileType(config: ObjectParseOptions, name: string): FileType {
  const type = config.file_type ?? inferFileType(name);
  if (!type) {
    throw new ConnectorError(
      'invalid_config',
      `file_type cannot be detected from "${name}": set file_type (csv, tsv, json, excel, parquet).`,
    );
  }
  return type;
}

async function withObjectFile<C extends ObjectParseOptions, T>(
  store: ObjectStore<C>,
  config: C,
  ctx: DriverContext,
  work: (path: string) => Promise<T>,
): Promise<T> {
  await mkdir(ctx.scratchDir, { recursive: true, mode: 0o700 });
  const path = join(ctx.scratchDir, `object-${randomUUID()}`);
  try {
    await pipeline(await store.download(config, ctx), createWriteStream(path, { mode: 0o600 }));
    return await work(path);
  } finally {
    await rm(path, { force: true });
  }
}

export function objectStoreDriver<C extends ObjectParseOptions>(store: ObjectStore<C>): ConnectorDriver<C> {
  return {
    async test(config, ctx): Promise<DriverTestOutcome> {
      const fileType = objectFileType(config, store.objectName(config));
      return withObjectFile(store, config, ctx, async (path) => {
        const size = (await stat(path)).size;
        if (size === 0) throw new ConnectorError('invalid_payload', `${store.label(config)} is empty.`);
        const description = await describeFileInThread(
          { kind: 'path', path },
          formatOptions(config, fileType),
          parseRun(ctx),
        );
        return {
          message: `Read ${store.label(config)} (${size} bytes): parsed ${description.records} ${fileType} record(s).`,
          details: {
            records: description.records,
            bytes: size,
            file_type: fileType,
            columns: description.columns,
          },
        };
      });
    },

    async browse(config, ctx): Promise<BrowseResult> {
      const fileType = objectFileType(config, store.objectName(config));
      const siblings = await store.listSiblings(config, ctx);
      return withObjectFile(store, config, ctx, async (path) => {
        const description = await describeFileInThread(
          { kind: 'path', path },
          formatOptions(config, fileType),
          parseRun(ctx),
        );
        const items = [...siblings, ...fileBrowseItems(description, fileType)];
        return {
          items,
          total: items.length,
          message: `${siblings.length} object(s) listed; ${store.label(config)} has ${description.records} record(s) with ${description.columns.length} field(s).`,
          discovery: { object: store.label(config), ...fileDiscovery(description, fileType) },
        };
      });
    },

    readRows(config, selection: RowSelection, ctx) {
      async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
        for await (const batch of readObject(config, selection, ctx, false)) {
          // Without text tables every batch is records.
          if (!isTextTable(batch)) yield batch;
        }
      }
      return limitBatches(rows(), selection.limit);
    },

    readTables(config, selection: RowSelection, ctx) {
      return limitBatches(readObject(config, selection, ctx, true), selection.limit);
    },
  };

  async function* readObject(
    config: C,
    selection: RowSelection,
    ctx: DriverContext,
    textTables: boolean,
  ): AsyncGenerator<RowBatch> {
    const fileType = objectFileType(config, store.objectName(config));
    await mkdir(ctx.scratchDir, { recursive: true, mode: 0o700 });
    const path = join(ctx.scratchDir, `object-${randomUUID()}`);
    try {
      await pipeline(await store.download(config, ctx), createWriteStream(path, { mode: 0o600 }));
      yield* readFileInThread(
        textTables ? readTablesInThread : readFileBatchesInThread,
        { kind: 'path', path },
        formatOptions(config, fileType, selection.sheet),
        ctx,
      );
    } finally {
      await rm(path, { force: true });
    }
  }
}

export function keyPrefix(key: string): string {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? '' : key.slice(0, slash + 1);
}
