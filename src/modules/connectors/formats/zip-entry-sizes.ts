import type { Entry, ZipFile } from 'yauzl';
import { ConnectorError } from '../connector-error';
import { loadOnFirstUse } from '../lazy-module';

const loadYauzl = loadOnFirstUse(async () => (await import('yauzl')).default);

const damaged = (what: string, why: string): ConnectorError =>
  new ConnectorError('invalid_payload', `${what} is damaged: ${why}.`);

/**
 * Inflates every entry of a zip once, counting bytes as the inflater produces them, and stops at the first entry
 * that produces more than its directory declares. The Excel reader inflates each entry whole before it compares
 * sizes, so a 3 MB file declaring 1 MiB could grow toward gigabytes; after this pass the declared sizes, already
 * checked against the limits, are what it will get. The inflated bytes are dropped as they come.
 */
export async function checkZipEntrySizes(bytes: Uint8Array, what: string): Promise<void> {
  const yauzl = await loadYauzl();
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw damaged(what, (error as Error).message);
  }
  try {
    for await (const entry of zip.eachEntry()) await drain(zip, entry, what);
  } catch (error) {
    // yauzl reads each local header and the next directory record only when asked, so a damaged one surfaces here.
    if (error instanceof ConnectorError) throw error;
    throw damaged(what, (error as Error).message);
  } finally {
    zip.close();
  }
}

async function drain(zip: ZipFile, entry: Entry, what: string): Promise<void> {
  if (entry.fileName.endsWith('/')) return;
  if (!entry.canDecodeFileData()) {
    throw damaged(
      what,
      `the entry "${entry.fileName}" is encrypted or uses compression method ${entry.compressionMethod}`,
    );
  }
  const stream = await zip.openReadStreamPromise(entry);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) void chunk;
  } catch (error) {
    stream.destroy();
    throw /too many bytes/i.test((error as Error).message)
      ? damaged(
          what,
          `the entry "${entry.fileName}" inflates to more than the ${entry.uncompressedSize} bytes its zip directory declares`,
        )
      : damaged(what, (error as Error).message);
  }
}
