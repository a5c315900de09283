import { FileConfig, ObjectParseFields, ObjectParseOptions } from '../connector-config';
import {
  BrowseItem,
  BrowseResult,
  ConnectorDriver,
  DriverContext,
  limitBatches,
  RowSelection,
} from '../connector-driver';
import { ConnectorError } from '../connector-error';
import { CollisionLog, contentBytes, FileDescription, FileSource, FormatOptions, RowBatch } from '../formats';
import {
  describeFileInThread,
  ParseRun,
  readFileBatchesInThread,
  readFileRecordsInThread,
} from '../formats/parse-thread';
import { confinedFile } from '../local-path';
import { plainCsvFile } from '../formats/plain-csv';
import { defineConnector, RequestedType } from '../connector-descriptor';
import { compact, ConfigString } from '../config-fields';
import { FileType, inferFileType } from '../file-types';

export function formatOptions(
  options: ObjectParseOptions,
  fileType: FileType,
  sheet?: string | number,
): FormatOptions {
  return {
    fileType,
    jsonPath: options.json_path,
    sheet: sheet ?? options.sheet,
    delimiter: options.delimiter,
    encoding: options.encoding,
    hasHeader: options.has_header,
  };
}

export function parseRun(ctx: DriverContext): ParseRun {
  return { limits: ctx.parseLimits, signal: ctx.signal };
}

interface ResolvedSource {
  readonly source: FileSource;
  readonly label: string;
}

/** Inline content wins when non-empty (spec); otherwise the confined file_path. */
async function resolveSource(config: FileConfig, ctx: DriverContext): Promise<ResolvedSource> {
  if (config.content !== undefined && config.content !== '') {
    return {
      source: { kind: 'bytes', bytes: contentBytes(config.file_type, config.content) },
      label: 'inline content',
    };
  }
  if (config.file_path !== undefined && config.file_path !== '') {
    const path = await confinedFile(ctx.imports, config.file_path);
    return { source: { kind: 'path', path }, label: config.file_path };
  }
  throw new ConnectorError('invalid_payload', 'Parsed 0 records: both content and file_path are empty.');
}

export function fileBrowseItems(description: FileDescription, fileType: FileType): BrowseItem[] {
  const types = new Map((description.columnTypes ?? []).map((c) => [c.name, c.type]));
  const sheets: BrowseItem[] = (description.sheets ?? []).map((name) => ({ name, kind: 'sheet' }));
  const fields: BrowseItem[] = description.columns.map((name) => ({
    name,
    kind: 'field',
    ...(types.has(name) ? { type: types.get(name) } : {}),
  }));
  return fileType === 'excel' ? [...sheets, ...fields] : fields;
}

export function fileDiscovery(description: FileDescription, fileType: FileType): Record<string, unknown> {
  return {
    file_type: fileType,
    records: description.records,
    columns: description.columns,
    sample: description.sample,
    ...(description.sheets ? { sheets: description.sheets } : {}),
    ...(description.warnings.length > 0 ? { warnings: description.warnings } : {}),
  };
}

export const fileDriver: ConnectorDriver<FileConfig> = {
  async test(config, ctx) {
    const { source, label } = await resolveSource(config, ctx);
    const description = await describeFileInThread(
      source,
      formatOptions(config, config.file_type),
      parseRun(ctx),
    );
    const noRows = description.records === 0 ? ' (the file has no data rows)' : '';
    const warnings = description.warnings.length > 0 ? ` ${description.warnings.join(' ')}` : '';
    return {
      message: `Parsed ${description.records} record(s) from ${label}${noRows}.${warnings}`,
      details: {
        records: description.records,
        source: label === 'inline content' ? 'content' : 'file_path',
        columns: description.columns,
      },
    };
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const { source, label } = await resolveSource(config, ctx);
    const description = await describeFileInThread(
      source,
      formatOptions(config, config.file_type),
      parseRun(ctx),
    );
    const items = fileBrowseItems(description, config.file_type);
    return {
      items,
      total: items.length,
      message: `${description.records} record(s) with ${description.columns.length} field(s) in ${label}.`,
      discovery: fileDiscovery(description, config.file_type),
    };
  },

  readRows(config, selection: RowSelection, ctx) {
    return limitBatches(readConfiguredFile(config, selection, ctx, readFileRecordsInThread), selection.limit);
  },

  readTables(config, selection: RowSelection, ctx) {
    return limitBatches(readConfiguredFile(config, selection, ctx, readTablesInThread), selection.limit);
  },

  async plainCsv(config, selection: RowSelection, ctx) {
    if (config.file_type !== 'csv' && config.file_type !== 'tsv') return undefined;
    if (selection.limit !== undefined || (config.content !== undefined && config.content !== ''))
      return undefined;
    const { source } = await resolveSource(config, ctx);
    if (source.kind !== 'path') return undefined;
    const options = formatOptions(config, config.file_type);
    return plainCsvFile(
      source.path,
      { ...options, delimiter: options.delimiter ?? (config.file_type === 'tsv' ? '\t' : undefined) },
      ctx.parseLimits,
    );
  },
};

async function* readConfiguredFile<B extends RowBatch>(
  config: FileConfig,
  selection: RowSelection,
  ctx: DriverContext,
  read: ThreadRead<B>,
): AsyncGenerator<B> {
  const { source } = await resolveSource(config, ctx);
  yield* readFileInThread(read, source, formatOptions(config, config.file_type, selection.sheet), ctx);
}

type ThreadRead<B extends RowBatch> = (
  source: FileSource,
  options: FormatOptions,
  batchSize: number,
  collisions: CollisionLog,
  run: ParseRun,
) => AsyncIterable<B>;

export const readTablesInThread: ThreadRead<RowBatch> = (source, options, ...rest) =>
  readFileBatchesInThread(source, { ...options, textTables: true }, ...rest);

/** Reports the flattening collisions once, also when the reader stops early. */
export async function* readFileInThread<B extends RowBatch>(
  read: ThreadRead<B>,
  source: FileSource,
  options: FormatOptions,
  ctx: DriverContext,
): AsyncGenerator<B> {
  const collisions = new CollisionLog();
  try {
    yield* read(source, options, ctx.batchSize, collisions, parseRun(ctx));
  } finally {
    const warning = collisions.message();
    if (warning) ctx.warn(warning);
  }
}

export class FileConnectorConfig extends ObjectParseFields<FileConfig> {
  @ConfigString({ description: "The file's text, inline (with content or file_path, not both needed)." })
  content?: string;

  @ConfigString({
    aliases: ['path'],
    description:
      'A file inside the import directory, or the file_path an upload (POST /v1/connectors/uploads) returned.',
  })
  file_path?: string;

  toConfig(requested: RequestedType): FileConfig {
    const options = this.parseOptions(requested);
    return compact<FileConfig>({
      ...options,
      file_type: options.file_type ?? inferFileType(this.file_path) ?? 'csv',
      content: this.content,
      file_path: this.file_path,
    });
  }
}

export const fileConnector = defineConnector({
  name: 'file',
  family: 'file',
  aliases: [
    { name: 'file_upload' },
    { name: 'csv', fileType: 'csv' },
    { name: 'tsv', fileType: 'tsv' },
    { name: 'json', fileType: 'json' },
    { name: 'excel', fileType: 'excel' },
    { name: 'xlsx', fileType: 'excel' },
    { name: 'xls', fileType: 'excel' },
    { name: 'parquet', fileType: 'parquet' },
  ],
  config: FileConnectorConfig,
  destinationFields: [],
  driver: fileDriver,
});
