import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import {
  CollisionLog,
  contentBytes,
  describeFile,
  FileSource,
  readFileRecords,
} from '../../../src/modules/connectors/formats';

function parquet(rows = 3): Buffer {
  const ids = new BigInt64Array(rows);
  for (let i = 0; i < rows; i += 1) ids[i] = BigInt(i);
  if (rows >= 3) ids[2] = 9007199254740993n;
  return Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ids, type: 'INT64' },
        {
          name: 'name',
          data: Array.from({ length: rows }, (_, i) => (i === 1 ? null : `n${i}`)),
          type: 'STRING',
        },
        { name: 'score', data: Float64Array.from({ length: rows }, (_, i) => i / 2), type: 'DOUBLE' },
      ],
      rowGroupSize: 2,
    }),
  );
}

async function records(source: FileSource, batchSize = 2): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const batch of readFileRecords(source, { fileType: 'parquet' }, batchSize, new CollisionLog())) {
    expect(batch.length).toBeLessThanOrEqual(batchSize);
    out.push(...batch);
  }
  return out;
}

describe('parquet', () => {
  it('reads base64 content, keeping INT64 beyond 2^53 exact as a string', async () => {
    const bytes = contentBytes('parquet', parquet().toString('base64'));
    expect(await records({ kind: 'bytes', bytes })).toEqual([
      { id: 0, name: 'n0', score: 0 },
      { id: 1, name: null, score: 0.5 },
      { id: '9007199254740993', name: 'n2', score: 1 },
    ]);
  });

  it('streams a file from disk across row groups, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conn-parquet-'));
    try {
      writeFileSync(join(dir, 'big.parquet'), parquet(1001));
      const rows = await records({ kind: 'path', path: join(dir, 'big.parquet') }, 100);
      expect(rows).toHaveLength(1001);
      expect(rows[1000]).toEqual({ id: 1000, name: 'n1000', score: 500 });
      const footers: unknown[] = [];
      const description = await describeFile(
        { kind: 'path', path: join(dir, 'big.parquet') },
        { fileType: 'parquet', onParquetFooter: (footer) => footers.push(footer) },
      );
      expect(description.records).toBe(1001);
      expect(description.columnTypes?.map((c) => c.name)).toEqual(['id', 'name', 'score']);
      // The footer is read once: the column types are the ones of the footer the records were read with.
      expect(footers).toHaveLength(1);
      expect(description.columnTypes).toBe((footers[0] as { columns: unknown }).columns);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses bytes that are not Parquet and content that is not base64', async () => {
    await expect(
      records({ kind: 'bytes', bytes: Buffer.from('definitely not parquet') }),
    ).rejects.toBeInstanceOf(ConnectorError);
    await expect(
      records({ kind: 'bytes', bytes: Buffer.from('definitely not parquet') }),
    ).rejects.toMatchObject({ errorType: 'invalid_payload' });
    expect(() => contentBytes('parquet', '%%%')).toThrow(
      expect.objectContaining({ errorType: 'invalid_payload' }),
    );
  });
});
