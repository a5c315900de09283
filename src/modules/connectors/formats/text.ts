import { TextDecoder } from 'node:util';

/** How much of a text source is read before deciding its encoding, delimiter and header. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * Picks the text encoding: a byte-order mark wins, then the configured `encoding`, then UTF-8 when the sample is
 * valid UTF-8, else windows-1252 (what spreadsheet exports without a BOM usually are).
 */
export function detectEncoding(sample: Uint8Array, requested?: string): string {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) return 'utf-8';
  if (sample[0] === 0xff && sample[1] === 0xfe) return 'utf-16le';
  if (sample[0] === 0xfe && sample[1] === 0xff) return 'utf-16be';
  if (requested) return requested;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return 'utf-8';
  } catch {
    return 'windows-1252';
  }
}

/** Decodes a whole buffer (BOM removed). */
export function decodeText(bytes: Uint8Array, requested?: string): string {
  return new TextDecoder(detectEncoding(bytes.subarray(0, SNIFF_BYTES), requested)).decode(bytes);
}

/** Decodes a byte stream chunk by chunk; the encoding is chosen from the first SNIFF_BYTES. */
export async function* decodeStream(
  chunks: AsyncIterable<Uint8Array>,
  requested?: string,
): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  let head: Buffer[] = [];
  let headBytes = 0;
  for await (const chunk of chunks) {
    if (decoder) {
      yield decoder.decode(chunk, { stream: true });
      continue;
    }
    head.push(Buffer.from(chunk));
    headBytes += chunk.byteLength;
    if (headBytes < SNIFF_BYTES) continue;
    const sample = Buffer.concat(head);
    head = [];
    decoder = new TextDecoder(detectEncoding(sample, requested));
    yield decoder.decode(sample, { stream: true });
  }
  if (!decoder) {
    const sample = Buffer.concat(head);
    decoder = new TextDecoder(detectEncoding(sample, requested));
    yield decoder.decode(sample, { stream: true });
  }
  const tail = decoder.decode();
  if (tail !== '') yield tail;
}
