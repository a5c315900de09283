import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { defineConnector } from '../connector-descriptor';
import { ConfigString, ConnectorConfig, storedFields } from '../config-fields';
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
import { confinedFile } from '../local-path';
import {
  ArchiveEntry,
  archiveFormatOf,
  ArchiveSource,
  listArchive,
  readArchiveFile,
} from './archive-entries';
import { assertParseableSize, dataFileType, fileEntry, innerPath, readDataFile } from './data-file';

export interface RepoArchiveConfig {
  /** An upload (`POST /v1/connectors/uploads`) or another file of the organization's part of the import dir. */
  readonly file_path?: string;
  readonly content?: string;
  /** With `content`: the archive's name, whose extension says its format. */
  readonly file_name?: string;
}

const MAX_LISTED = 5000;
const FORMATS = '.tar.gz, .tgz, .tar or .zip';

function decodeBase64(content: string): Buffer {
  const body = content.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
  if (body === '' || body.length % 4 === 1 || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(body)) {
    throw new ConnectorError(
      'invalid_payload',
      'The archive content is not valid base64 and cannot be decoded.',
    );
  }
  return Buffer.from(body, 'base64');
}

async function archiveSource(config: RepoArchiveConfig, ctx: DriverContext): Promise<ArchiveSource> {
  if (config.content !== undefined && config.content !== '') {
    const label = basename(config.file_name ?? 'archive');
    const format = archiveFormatOf(label);
    if (format === undefined) {
      throw new ConnectorError('invalid_config', `file_name must name a ${FORMATS} archive.`);
    }
    const bytes = decodeBase64(config.content);
    return { kind: 'bytes', bytes, format, label, size: bytes.byteLength };
  }
  if (config.file_path === undefined || config.file_path === '') {
    throw new ConnectorError('invalid_config', 'Give file_path (an upload) or content with file_name.');
  }
  const label = basename(config.file_path);
  const format = archiveFormatOf(label);
  if (format === undefined)
    throw new ConnectorError('invalid_config', `file_path must name a ${FORMATS} archive.`);
  const path = await confinedFile(ctx.imports, config.file_path);
  return { kind: 'path', path, format, label, size: (await stat(path)).size };
}

function browseItem(entry: ArchiveEntry): BrowseItem {
  if (entry.kind === 'file') return fileEntry(entry.name, entry.size);
  return { name: entry.name, kind: entry.kind, size: entry.size };
}

function summary(entries: readonly ArchiveEntry[]) {
  const files = entries.filter((entry) => entry.kind === 'file');
  return {
    entries: entries.length,
    files: files.length,
    data_files: files.filter((entry) => fileEntry(entry.name).type !== undefined).length,
    directories: entries.filter((entry) => entry.kind === 'directory').length,
    links: entries.filter((entry) => entry.kind === 'symlink' || entry.kind === 'hardlink').length,
  };
}

export const repoArchiveDriver: ConnectorDriver<RepoArchiveConfig> = {
  async test(config, ctx): Promise<DriverTestOutcome> {
    const source = await archiveSource(config, ctx);
    const entries = await listArchive(source, ctx.parseLimits, ctx.signal);
    const counts = summary(entries);
    return {
      message: `Read ${source.label} (${source.format}, ${source.size} bytes): ${counts.entries} entries, ${counts.data_files} of them data files; every entry is safe.`,
      details: { format: source.format, bytes: source.size, ...counts },
    };
  },

  async browse(config, ctx): Promise<BrowseResult> {
    const source = await archiveSource(config, ctx);
    const entries = await listArchive(source, ctx.parseLimits, ctx.signal);
    const items = entries
      .filter((entry) => entry.kind !== 'directory')
      .slice(0, MAX_LISTED)
      .map(browseItem);
    const counts = summary(entries);
    const complete = counts.entries - counts.directories <= MAX_LISTED;
    const shown = complete
      ? `${items.length} entr${items.length === 1 ? 'y' : 'ies'}`
      : `the first ${items.length} entries`;
    return {
      items,
      total: items.length,
      message: `${shown} of ${source.label} (folders not listed), ${counts.data_files} data files.`,
      discovery: { format: source.format, bytes: source.size, complete, ...counts },
    };
  },

  readRows(config, selection: RowSelection, ctx) {
    async function* rows(): AsyncGenerator<Record<string, unknown>[]> {
      const path = innerPath(selection.path);
      dataFileType(path);
      const source = await archiveSource(config, ctx);
      const bytes = await readArchiveFile(source, path, ctx.parseLimits, ctx.signal);
      assertParseableSize(path, bytes.byteLength, ctx);
      yield* readDataFile({ name: path, bytes }, ctx);
    }
    return limitBatches(rows(), selection.limit);
  },
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const hasContent = (config: RepoArchiveConnectorConfig): boolean => Boolean(text(config.content));
const hasPath = (config: RepoArchiveConnectorConfig): boolean => Boolean(text(config.file_path)?.trim());

export class RepoArchiveConnectorConfig extends ConnectorConfig<RepoArchiveConfig> {
  @ConfigString<RepoArchiveConnectorConfig>({
    checks: [
      (value, config) => {
        if (hasContent(config)) return undefined;
        if (!hasPath(config)) return 'is required (or content with file_name)';
        return archiveFormatOf(value as string) === undefined ? `must end in ${FORMATS}` : undefined;
      },
    ],
    description: `An upload (POST /v1/connectors/uploads) or a file of the import directory; ${FORMATS}.`,
  })
  file_path?: string;

  @ConfigString<RepoArchiveConnectorConfig>({
    checks: [
      (_value, config) =>
        hasContent(config) && hasPath(config) ? 'give either file_path or content, not both' : undefined,
    ],
    description: 'The archive itself, base64 (instead of file_path).',
  })
  content?: string;

  @ConfigString<RepoArchiveConnectorConfig>({
    checks: [
      (value, config) => {
        if (hasPath(config)) return value === undefined ? undefined : 'applies only with content';
        if (!hasContent(config)) return undefined;
        if (text(value)?.trim() === undefined || text(value)?.trim() === '')
          return 'is required with content';
        return archiveFormatOf(value as string) === undefined ? `must end in ${FORMATS}` : undefined;
      },
    ],
    description: `With content: the archive's name, whose extension (${FORMATS}) says its format.`,
  })
  file_name?: string;

  toConfig(): RepoArchiveConfig {
    return storedFields<RepoArchiveConfig>(this);
  }
}

export const repoArchiveConnector = defineConnector({
  name: 'repo_archive',
  family: 'repository',
  config: RepoArchiveConnectorConfig,
  selection: { path: 'required' },
  destinationFields: [],
  driver: repoArchiveDriver,
});
