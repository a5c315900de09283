import { createReadStream } from 'node:fs';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { ReadEntry } from 'tar';
import type { Entry, ZipFile } from 'yauzl';
import { ConnectorError } from '../connector-error';
import type { ParseLimits } from '../formats';
import { RATIO_FLOOR_BYTES } from '../formats/parse-limits';
import { loadOnFirstUse } from '../lazy-module';
import { errorMessage } from '../network-errors';

// Archives are read in memory, never extracted. Every entry is checked before any content is handed out, and limits
// apply to what the inflater produces, not to what headers declare.

export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz';

export function archiveFormatOf(name: string): ArchiveFormat | undefined {
  const lower = name.trim().toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  return undefined;
}

export type ArchiveSource = {
  readonly format: ArchiveFormat;
  readonly label: string;
  readonly size: number;
} & ({ readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'path'; readonly path: string });

export type ArchiveEntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface ArchiveEntry {
  readonly name: string;
  readonly kind: ArchiveEntryKind;
  readonly size: number;
  readonly target?: string;
}

/** A zip symlink's content is its target; a longer one is not a path. */
const MAX_LINK_BYTES = 4096;
const GZIP_MAGIC = [0x1f, 0x8b];
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const ZIP_MAGIC = [0x50, 0x4b];

const loadYauzl = loadOnFirstUse(async () => (await import('yauzl')).default);
const loadTar = loadOnFirstUse(async () => import('tar'));

function unsafe(source: ArchiveSource, problem: string): ConnectorError {
  return new ConnectorError(
    'unsafe_archive',
    `${source.label} is refused: ${problem}. Nothing in it was read.`,
  );
}

function corrupt(source: ArchiveSource, error: unknown): ConnectorError {
  return new ConnectorError(
    'invalid_payload',
    `${source.label} is not a readable ${source.format} archive: ${errorMessage(error)}`,
  );
}

/** An entry name as a relative path; absolute paths, `..` and NUL are unsafe_archive (backslash is a separator). */
function safeName(source: ArchiveSource, raw: string): string {
  const name = raw.replace(/\\/g, '/');
  if (name.includes('\0')) throw unsafe(source, 'an entry name contains a NUL character');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) {
    throw unsafe(source, `the entry "${name}" has an absolute path`);
  }
  const segments = name.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw unsafe(source, `the entry "${name}" leads out of the archive with ".."`);
  return segments.join('/');
}

/** A link's target inside the archive (symlink: from its folder; hard link: from the root); escaping is refused. */
function linkTarget(
  source: ArchiveSource,
  name: string,
  target: string,
  kind: 'symlink' | 'hardlink',
): string {
  const raw = target.replace(/\\/g, '/');
  const leadsOut = (): ConnectorError =>
    unsafe(source, `the ${kind === 'symlink' ? 'symbolic' : 'hard'} link "${name}" leads out of the archive`);
  if (raw === '' || raw.includes('\0') || raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw leadsOut();
  const resolved = posix.normalize(kind === 'symlink' ? posix.join(posix.dirname(name), raw) : raw);
  if (resolved === '..' || resolved.startsWith('../')) throw leadsOut();
  return resolved.replace(/^\.\/?/, '').replace(/\/$/, '');
}

class InflateBudget {
  private total = 0;

  constructor(
    private readonly source: ArchiveSource,
    private readonly limits: ParseLimits,
  ) {}

  add(
    bytes: number,
    entry?: { readonly name: string; readonly compressed: number; readonly inflated: number },
  ) {
    this.total += bytes;
    const { maxDecompressedBytes, maxExpansionRatio } = this.limits;
    if (this.total > maxDecompressedBytes) {
      throw unsafe(
        this.source,
        `it inflates to more than ${maxDecompressedBytes} bytes (SERVICE_PARSE_MAX_DECOMPRESSED_BYTES)`,
      );
    }
    const ratio = (inflated: number, compressed: number): boolean =>
      inflated > RATIO_FLOOR_BYTES && inflated > Math.max(1, compressed) * maxExpansionRatio;
    if (ratio(this.total, this.source.size) || (entry && ratio(entry.inflated, entry.compressed))) {
      throw unsafe(
        this.source,
        `it inflates more than ${maxExpansionRatio}-fold (SERVICE_PARSE_MAX_EXPANSION_RATIO)`,
      );
    }
  }
}

function sourceStream(source: ArchiveSource): Readable {
  return source.kind === 'bytes'
    ? Readable.from([source.bytes])
    : createReadStream(source.path, { highWaterMark: 256 * 1024 });
}

function startsWith(chunk: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, i) => chunk[i] === byte);
}

interface Scan {
  readonly entries: readonly ArchiveEntry[];
  readonly content?: Buffer;
}

function tooManyEntries(source: ArchiveSource, limits: ParseLimits): ConnectorError {
  return unsafe(
    source,
    `it has more than ${limits.maxArchiveEntries} entries (SERVICE_PARSE_MAX_ARCHIVE_ENTRIES)`,
  );
}

const UNIX_HOSTS = new Set([3, 19]);

function zipKind(entry: Entry, rawName: string): ArchiveEntryKind {
  const mode = UNIX_HOSTS.has(entry.versionMadeBy >> 8)
    ? (entry.externalFileAttributes >>> 16) & 0o170000
    : 0;
  if (mode === 0o120000) return 'symlink';
  if (rawName.endsWith('/') || rawName.endsWith('\\') || mode === 0o040000) return 'directory';
  return mode === 0 || mode === 0o100000 ? 'file' : 'other';
}

async function inflateZipEntry(
  source: ArchiveSource,
  zip: ZipFile,
  entry: Entry,
  name: string,
  budget: InflateBudget,
  cap: number,
): Promise<Buffer> {
  if (!entry.canDecodeFileData()) {
    throw new ConnectorError(
      'invalid_payload',
      `${name} in ${source.label} is encrypted or compressed with an unsupported method (${entry.compressionMethod}).`,
    );
  }
  const stream = await zip.openReadStreamPromise(entry);
  const chunks: Buffer[] = [];
  let inflated = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      budget.add(chunk.length, { name, compressed: entry.compressedSize, inflated });
      if (inflated > cap) throw unsafe(source, `the link "${name}" has a target longer than ${cap} bytes`);
      chunks.push(chunk);
    }
  } catch (error) {
    stream.destroy();
    if (error instanceof ConnectorError) throw error;
    if (/too many bytes/i.test(errorMessage(error))) {
      throw unsafe(source, `the entry "${name}" inflates to more than its header declares`);
    }
    throw corrupt(source, error);
  }
  return Buffer.concat(chunks, inflated);
}

async function scanZip(
  source: ArchiveSource,
  limits: ParseLimits,
  wanted: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Scan> {
  const yauzl = await loadYauzl();
  const options = {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: false,
    validateEntrySizes: true,
    strictFileNames: false,
  };
  let zip: ZipFile;
  try {
    zip =
      source.kind === 'bytes'
        ? await yauzl.fromBufferPromise(source.bytes, options)
        : await yauzl.openPromise(source.path, options);
  } catch (error) {
    throw corrupt(source, error);
  }
  try {
    if (zip.entryCount > limits.maxArchiveEntries) throw tooManyEntries(source, limits);
    const budget = new InflateBudget(source, limits);
    const entries: ArchiveEntry[] = [];
    let wantedEntry: Entry | undefined;
    let seen = 0;
    for await (const entry of zip.eachEntry()) {
      signal?.throwIfAborted();
      seen += 1;
      if (seen > limits.maxArchiveEntries) throw tooManyEntries(source, limits);
      const rawName = yauzl.getFileNameLowLevel(
        entry.generalPurposeBitFlag,
        entry.fileNameRaw,
        entry.extraFields,
        false,
      );
      const name = safeName(source, rawName);
      if (name === '') continue;
      const kind = zipKind(entry, rawName);
      let target: string | undefined;
      if (kind === 'symlink') {
        const link = await inflateZipEntry(source, zip, entry, name, budget, MAX_LINK_BYTES);
        target = linkTarget(source, name, link.toString('utf8'), 'symlink');
      }
      entries.push({ name, kind, size: entry.uncompressedSize, ...(target !== undefined ? { target } : {}) });
      if (wanted !== undefined && name === wanted && kind === 'file') wantedEntry = entry;
    }
    if (wantedEntry === undefined) return { entries };
    const content = await inflateZipEntry(
      source,
      zip,
      wantedEntry,
      wanted!,
      budget,
      limits.maxDecompressedBytes,
    );
    return { entries, content };
  } catch (error) {
    if (error instanceof ConnectorError || signal?.aborted) throw error;
    throw corrupt(source, error);
  } finally {
    zip.close();
  }
}

const TAR_KINDS: Partial<Record<ReadEntry['type'], ArchiveEntryKind>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'directory',
  SymbolicLink: 'symlink',
  Link: 'hardlink',
};

async function scanTar(
  source: ArchiveSource,
  limits: ParseLimits,
  wanted: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Scan> {
  const { Parser } = await loadTar();
  const budget = new InflateBudget(source, limits);
  const entries: ArchiveEntry[] = [];
  let captured: Buffer[] | undefined;
  let failure: Error | undefined;
  let seen = 0;
  const fail = (error: unknown): void => {
    failure ??= error instanceof Error ? error : new Error(String(error));
  };
  // The decompression is ours (node:zlib, counted); the parser must not inflate anything itself.
  const parser = new Parser({ strict: true, zstd: false, brotli: false });
  const ended = new Promise<void>((resolve) => parser.on('end', resolve));
  parser.on('error', fail);
  parser.on('entry', (entry: ReadEntry) => {
    try {
      seen += 1;
      if (seen > limits.maxArchiveEntries) throw tooManyEntries(source, limits);
      const name = safeName(source, entry.path);
      const kind = TAR_KINDS[entry.type] ?? 'other';
      const target =
        kind === 'symlink' || kind === 'hardlink'
          ? linkTarget(source, name, entry.linkpath ?? '', kind)
          : undefined;
      if (name !== '')
        entries.push({ name, kind, size: entry.size, ...(target !== undefined ? { target } : {}) });
      if (wanted !== undefined && name === wanted && kind === 'file') {
        const chunks: Buffer[] = [];
        captured = chunks;
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        return;
      }
    } catch (error) {
      fail(error);
    }
    entry.resume();
  });

  const feed = async (chunks: AsyncIterable<Buffer>): Promise<void> => {
    let first = true;
    for await (const chunk of chunks) {
      signal?.throwIfAborted();
      if (first && (startsWith(chunk, GZIP_MAGIC) || startsWith(chunk, ZSTD_MAGIC))) {
        throw new ConnectorError(
          'invalid_payload',
          `${source.label} holds a compressed stream where a tar archive was expected (only .tar and .tar.gz are read).`,
        );
      }
      first = false;
      budget.add(chunk.length);
      if (!parser.write(chunk) && failure === undefined) {
        await new Promise<void>((resolve) => parser.once('drain', resolve));
      }
      if (failure !== undefined) throw failure;
    }
    parser.end();
    await Promise.race([ended, new Promise((resolve) => parser.once('error', resolve))]);
    if (failure !== undefined) throw failure;
  };

  try {
    if (source.format === 'tar.gz') await pipeline(sourceStream(source), createGunzip(), feed);
    else await pipeline(sourceStream(source), feed);
  } catch (error) {
    if (error instanceof ConnectorError || signal?.aborted) throw error;
    throw corrupt(source, error);
  }
  return { entries, ...(captured ? { content: Buffer.concat(captured) } : {}) };
}

async function scan(
  source: ArchiveSource,
  limits: ParseLimits,
  wanted: string | undefined,
  signal: AbortSignal | undefined,
): Promise<Scan> {
  if (source.size > limits.maxArchiveBytes) {
    throw new ConnectorError(
      'invalid_payload',
      `${source.label} has ${source.size} bytes, more than an upload may have (${limits.maxArchiveBytes}, SERVICE_MAX_UPLOAD_BYTES).`,
    );
  }
  const head = await firstBytes(source);
  const isZip = startsWith(head, ZIP_MAGIC);
  const isGzip = startsWith(head, GZIP_MAGIC);
  if ((source.format === 'zip') !== isZip || (source.format === 'tar.gz') !== isGzip) {
    throw new ConnectorError(
      'invalid_payload',
      `${source.label} is not a ${source.format} archive (its first bytes say otherwise).`,
    );
  }
  return source.format === 'zip'
    ? scanZip(source, limits, wanted, signal)
    : scanTar(source, limits, wanted, signal);
}

async function firstBytes(source: ArchiveSource): Promise<Buffer> {
  if (source.kind === 'bytes') return source.bytes.subarray(0, 4);
  const stream = createReadStream(source.path, { start: 0, end: 3 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function listArchive(
  source: ArchiveSource,
  limits: ParseLimits,
  signal?: AbortSignal,
): Promise<readonly ArchiveEntry[]> {
  return (await scan(source, limits, undefined, signal)).entries;
}

/** Read only after every entry has been checked; the last entry of that name wins, as tar does. */
export async function readArchiveFile(
  source: ArchiveSource,
  path: string,
  limits: ParseLimits,
  signal?: AbortSignal,
): Promise<Buffer> {
  const { entries, content } = await scan(source, limits, path, signal);
  const entry = entries.findLast((candidate) => candidate.name === path);
  if (entry === undefined) throw new ConnectorError('not_found', `${path} is not in ${source.label}.`);
  if (entry.kind === 'directory')
    throw new ConnectorError('invalid_config', `${path} is a folder, not a file.`);
  if (entry.kind === 'symlink' || entry.kind === 'hardlink') {
    throw new ConnectorError(
      'invalid_config',
      `${path} is a link to ${entry.target ?? 'another entry'}; name the file it points to.`,
    );
  }
  if (entry.kind !== 'file' || content === undefined) {
    throw new ConnectorError('invalid_config', `${path} is not a regular file.`);
  }
  return content;
}
