import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import busboy from 'busboy';
import { FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../common/config';
import { AppError } from '../../common/errors';
import { APP_LOGGER, AppLogger } from '../../common/logging';
import { directoryBytes, StorageQuotaService } from '../storage-quota/storage-quota.service';
import { orgUploadDir, orgUploadDirs } from './local-path';

/** Content types whose bodies are streamed to disk by the uploads route instead of being buffered. */
export const STREAMED_CONTENT_TYPES = ['application/octet-stream', 'multipart/form-data'];

export class UploadedFile {
  @ApiProperty({
    example: 'orgs/org_0mh3k2l1a09f3c2b7d4e5f6a7b/uploads/4b9d2c1e8a7f4d0b9c6e5a3f2d1b0c9e_sales.csv',
    description: "Relative to the import dir: put it in a file connector's `file_path`.",
  })
  readonly file_path!: string;
  @ApiProperty({ type: 'integer', example: 1024 })
  readonly bytes!: number;
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the stored bytes, in hex.' })
  readonly sha256!: string;
}

export function safeFileName(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 120);
  return cleaned === '' ? 'upload.bin' : cleaned;
}

class TooLarge extends Error {}
class OverQuota extends Error {}

const MULTIPART_OVERHEAD = 64 * 1024;

// Partial files are removed on any failure, including 413 over SERVICE_MAX_UPLOAD_BYTES and 507 over the quota.
@Injectable()
export class ConnectorUploads implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
    private readonly quota: StorageQuotaService,
  ) {}

  onModuleInit(): void {
    this.quota.registerSource('uploads', async (orgId) => {
      let total = 0;
      for (const dir of orgUploadDirs(this.config.importDir, orgId)) total += await directoryBytes(dir);
      return total;
    });
  }

  async receive(orgId: string, request: FastifyRequest): Promise<UploadedFile> {
    const type = (request.headers['content-type'] ?? '').toLowerCase();
    const body = request.body;
    if (!(body instanceof Readable)) {
      throw new AppError(
        'unsupported_media_type',
        'Send the file as application/octet-stream (name in X-Filename) or as multipart/form-data.',
      );
    }
    const declared = Number(request.headers['content-length'] ?? '0');
    const overhead = type.startsWith('multipart/') ? MULTIPART_OVERHEAD : 0;
    if (declared > this.config.maxUploadBytes + overhead) {
      body.resume();
      throw new AppError('payload_too_large', `Uploads are limited to ${this.config.maxUploadBytes} bytes.`);
    }
    const room = await this.quota.remainingBytes(orgId);
    if (declared > room + overhead) {
      body.resume();
      throw this.quota.exceeded(await this.quota.bytesInUse(orgId), declared);
    }
    if (type.startsWith('multipart/form-data')) return this.receiveMultipart(orgId, request, body, room);
    const header = request.headers['x-filename'];
    const query = (request.query as Record<string, unknown> | undefined)?.filename;
    const name = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
    return this.store(orgId, body, name, room);
  }

  private receiveMultipart(
    orgId: string,
    request: FastifyRequest,
    body: Readable,
    room: number,
  ): Promise<UploadedFile> {
    return new Promise<UploadedFile>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers: request.headers, limits: { files: 1, fields: 20 } });
      } catch {
        reject(new AppError('unsupported_media_type', 'The multipart body has no boundary.'));
        return;
      }
      let handled = false;
      parser.on('file', (_field, stream, info) => {
        if (handled) {
          stream.resume();
          return;
        }
        handled = true;
        this.store(orgId, stream, info.filename, room).then(resolve, reject);
      });
      parser.on('error', (error) =>
        reject(
          error instanceof AppError
            ? error
            : new AppError('validation_failed', 'The multipart body is malformed.'),
        ),
      );
      parser.on('close', () => {
        if (!handled)
          reject(AppError.validation([{ field: 'file', problem: 'the multipart form has no file part' }]));
      });
      body.pipe(parser);
    });
  }

  private async store(
    orgId: string,
    source: Readable,
    name: string | undefined,
    room: number,
  ): Promise<UploadedFile> {
    const dir = orgUploadDir(this.config.importDir, orgId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const id = randomUUID().replace(/-/g, '');
    const final = join(dir, `${id}_${safeFileName(name)}`);
    // Hidden and dot-led, unlike any finished upload, so the start-up sweep can never take a user's "x.partial".
    const partial = join(dir, `.${id}_${safeFileName(name)}.partial`);
    const hash = createHash('sha256');
    let bytes = 0;
    const limit = this.config.maxUploadBytes;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) {
          done(new TooLarge());
          return;
        }
        if (bytes > room) {
          done(new OverQuota());
          return;
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(partial, { mode: 0o600, flags: 'wx' }));
      await rename(partial, final);
    } catch (error) {
      source.resume();
      await rm(partial, { force: true });
      if (error instanceof TooLarge) {
        throw new AppError('payload_too_large', `Uploads are limited to ${limit} bytes.`);
      }
      if (error instanceof OverQuota) throw this.quota.exceeded(await this.quota.bytesInUse(orgId), bytes);
      throw error;
    }
    const result = { file_path: relative(this.config.importDir, final), bytes, sha256: hash.digest('hex') };
    this.logger.info(
      { event: 'connector_upload_stored', org_id: orgId, bytes, sha256: result.sha256 },
      'upload stored',
    );
    return result;
  }
}
