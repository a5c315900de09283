// A 4-byte big-endian payload length, then that many bytes of UTF-8 JSON.
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class FrameTooLargeError extends Error {
  constructor(readonly length: number) {
    super(`a frame announced ${length} bytes, more than the ${MAX_FRAME_BYTES} allowed`);
    this.name = 'FrameTooLargeError';
  }
}

export function encodeFrame(message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message), 'utf8');
  if (payload.length > MAX_FRAME_BYTES) throw new FrameTooLargeError(payload.length);
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  payload.copy(frame, 4);
  return frame;
}

export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): unknown[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: unknown[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) throw new FrameTooLargeError(length);
      if (this.buffer.length < 4 + length) break;
      frames.push(JSON.parse(this.buffer.toString('utf8', 4, 4 + length)));
      this.buffer = this.buffer.subarray(4 + length);
    }
    return frames;
  }
}
