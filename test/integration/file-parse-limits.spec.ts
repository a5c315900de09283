import { parquetWriteBuffer } from 'hyparquet-writer';
import { CollisionLog, FileSource, FormatOptions, ParseLimits } from '../../src/modules/connectors/formats';
import { MetricsService } from '../../src/common/metrics/metrics.service';
import {
  describeFileInThread,
  readFileRecordsInThread,
} from '../../src/modules/connectors/formats/parse-thread';
import { ParseThreadMetrics } from '../../src/modules/connectors/parse-thread.metrics';
import { parseLimits } from '../factories/parse-limits';
import { xlsx } from '../factories/xlsx';
import { connectorFailure } from '../support/connector-failure';

const metrics = new MetricsService();
new ParseThreadMetrics(metrics);

/** A parse_threads_* gauge as the daemon's /metrics would show it now. */
async function gauge(name: 'parse_threads_running' | 'parse_threads_queued'): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  return (await metric!.get()).values[0]?.value ?? Number.NaN;
}
const activeParseThreads = () => gauge('parse_threads_running');
const queuedParses = () => gauge('parse_threads_queued');

function bytes(content: Buffer | string): FileSource {
  return { kind: 'bytes', bytes: Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8') };
}

async function readAll(source: FileSource, options: FormatOptions, limits: ParseLimits): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const batch of readFileRecordsInThread(source, options, 1000, new CollisionLog(), { limits }))
    out.push(...batch);
  return out;
}

/** One INT32 column of `rows` zeros: dictionary and run-length encoding store it in a few hundred bytes. */
function constantParquet(rows: number): Buffer {
  return Buffer.from(
    parquetWriteBuffer({
      columnData: [{ name: 'zero', data: new Int32Array(rows), type: 'INT32' }],
      rowGroupSize: rows,
    }),
  );
}

describe('parsing files on a parse thread, within limits', () => {
  const limits = parseLimits();

  afterEach(async () => expect(await activeParseThreads()).toBe(0));

  it('reads and describes ordinary files, a __proto__ column included', async () => {
    expect(await readAll(bytes('id,__proto__\n1,a\n2,b\n'), { fileType: 'csv' }, limits)).toEqual([
      JSON.parse('{"id": "1", "__proto__": "a"}'),
      JSON.parse('{"id": "2", "__proto__": "b"}'),
    ]);
    const book = await describeFileInThread(bytes(xlsx(3)), { fileType: 'excel' }, { limits });
    expect(book).toMatchObject({ records: 3, columns: ['id', 'name'], sheets: ['Data'] });
    const parquet = await describeFileInThread(
      bytes(constantParquet(1000)),
      { fileType: 'parquet' },
      { limits },
    );
    expect(parquet).toMatchObject({ records: 1000, columns: ['zero'] });
  });

  it('refuses an xlsx whose sheet inflates a thousandfold, before inflating it', async () => {
    const bomb = xlsx(3, 64 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const error = await connectorFailure(
      describeFileInThread(bytes(bomb), { fileType: 'excel' }, { limits }),
    );
    expect(error.errorType).toBe('invalid_payload');
    expect(error.message).toMatch(/SERVICE_PARSE_MAX_EXPANSION_RATIO/);
    const capped = await connectorFailure(
      readAll(
        bytes(xlsx(3, 4 * 1024 * 1024)),
        { fileType: 'excel' },
        {
          ...limits,
          maxDecompressedBytes: 2 * 1024 * 1024,
        },
      ),
    );
    expect(capped.message).toMatch(/SERVICE_PARSE_MAX_DECOMPRESSED_BYTES/);
  });

  it('stops inflating an xlsx entry at the size its zip directory declares', async () => {
    const lying = xlsx(3, 64 * 1024 * 1024, 1024 * 1024);
    const error = await connectorFailure(
      describeFileInThread(bytes(lying), { fileType: 'excel' }, { limits }),
    );
    expect(error).toMatchObject({
      errorType: 'invalid_payload',
      message:
        'The Excel workbook is damaged: the entry "xl/worksheets/sheet1.xml" inflates to more than the 1048576 bytes its zip directory declares.',
    });
  });

  it('runs at most the appliance-wide number of parse threads and heap at once; the rest wait their turn', async () => {
    const csv = bytes(`id\n${Array.from({ length: 3000 }, (_, i) => i).join('\n')}\n`);
    // Two threads by count (maxThreads 2), and by heap (3 × 100 MB > 250 MB) with more threads allowed.
    for (const capped of [
      { ...limits, memoryMb: 100, maxThreads: 2, totalMemoryMb: 10_000 },
      { ...limits, memoryMb: 100, maxThreads: 8, totalMemoryMb: 250 },
    ]) {
      const readers = [0, 1, 2].map(() =>
        readFileRecordsInThread(csv, { fileType: 'csv' }, 1000, new CollisionLog(), { limits: capped }),
      );
      const first = [readers[0].next(), readers[1].next()];
      const third = readers[2].next();
      await Promise.all(first);
      expect([await activeParseThreads(), await queuedParses()]).toEqual([2, 1]);
      await readers[0].return(undefined);
      expect((await third).value).toHaveLength(1000);
      expect([await activeParseThreads(), await queuedParses()]).toEqual([2, 0]);
      await Promise.all(readers.map((reader) => reader.return(undefined)));
    }
    // A parse whose deadline passes while it waits leaves the queue with a timeout.
    const capped = { ...limits, maxThreads: 1 };
    const holder = readFileRecordsInThread(csv, { fileType: 'csv' }, 1000, new CollisionLog(), {
      limits: capped,
    });
    await holder.next();
    const deadline = new AbortController();
    const waiting = connectorFailure(
      describeFileInThread(csv, { fileType: 'csv' }, { limits: capped, signal: deadline.signal }),
    );
    expect(await queuedParses()).toBe(1);
    deadline.abort();
    expect((await waiting).errorType).toBe('timeout');
    expect(await queuedParses()).toBe(0);
    await holder.return(undefined);
  });

  it('refuses a tiny Parquet file that decodes to millions of values', async () => {
    const bomb = constantParquet(3_000_000);
    expect(bomb.length).toBeLessThan(64 * 1024);
    const error = await connectorFailure(readAll(bytes(bomb), { fileType: 'parquet' }, limits));
    expect(error).toMatchObject({ errorType: 'invalid_payload' });
    expect(error.message).toMatch(/SERVICE_PARSE_MAX_EXPANSION_RATIO/);
    const cells = await connectorFailure(
      describeFileInThread(
        bytes(constantParquet(5000)),
        { fileType: 'parquet' },
        {
          limits: { ...limits, maxCells: 4000 },
        },
      ),
    );
    expect(cells.message).toMatch(/SERVICE_PARSE_MAX_CELLS/);
  });

  it('reads a 1M-row Parquet file written as one row group, as mainstream writers do', async () => {
    const rows = 1_000_000;
    const file = Buffer.from(
      parquetWriteBuffer({
        columnData: [
          { name: 'id', data: Int32Array.from({ length: rows }, (_, i) => i), type: 'INT32' },
          { name: 'name', data: Array.from({ length: rows }, (_, i) => `name ${i % 5000}`), type: 'STRING' },
        ],
        rowGroupSize: rows,
      }),
    );
    let read = 0;
    let last: unknown;
    for await (const batch of readFileRecordsInThread(
      bytes(file),
      { fileType: 'parquet' },
      50_000,
      new CollisionLog(),
      { limits },
    )) {
      read += batch.length;
      last = batch[batch.length - 1];
    }
    expect([read, last]).toEqual([rows, { id: rows - 1, name: `name ${(rows - 1) % 5000}` }]);
  });

  it('refuses a CSV row of a million columns', async () => {
    const header = Array.from({ length: 1_000_000 }, (_, i) => `c${i}`).join(',');
    const error = await connectorFailure(
      describeFileInThread(bytes(`${header}\n`), { fileType: 'csv' }, { limits }),
    );
    expect(error.errorType).toBe('invalid_payload');
    expect(error.message).toMatch(/SERVICE_PARSE_MAX_COLUMNS/);
    const json = await connectorFailure(
      readAll(
        bytes(JSON.stringify([{ a: 1, b: 2 }, { c: 3 }])),
        { fileType: 'json' },
        { ...limits, maxColumns: 2 },
      ),
    );
    expect(json.message).toMatch(/SERVICE_PARSE_MAX_COLUMNS/);
  });

  it('stops a parse that outgrows its memory', async () => {
    const items = Array.from({ length: 400_000 }, (_, i) => ({
      id: i,
      text: `row number ${i}`,
      nested: { i },
    }));
    const json = await connectorFailure(
      describeFileInThread(
        bytes(JSON.stringify(items)),
        { fileType: 'json' },
        { limits: { ...limits, memoryMb: 32 } },
      ),
    );
    expect(json.errorType).toBe('invalid_payload');
    expect(json.message).toMatch(/SERVICE_PARSE_MEMORY_MB/);
    const book = await connectorFailure(
      describeFileInThread(
        bytes(xlsx(300_000)),
        { fileType: 'excel' },
        { limits: { ...limits, memoryMb: 32 } },
      ),
    );
    expect(book.errorType).toBe('invalid_payload');
    expect(book.message).toMatch(/SERVICE_PARSE_MEMORY_MB/);
  });

  it('terminates the parse when its deadline passes', async () => {
    const rows = Array.from({ length: 600_000 }, (_, i) => `${i},${i * 2},name ${i}`).join('\n');
    const controller = new AbortController();
    const parse = describeFileInThread(
      bytes(`a,b,c\n${rows}\n`),
      { fileType: 'csv' },
      { limits, signal: controller.signal },
    );
    while ((await activeParseThreads()) === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = await connectorFailure(parse);
    expect(error.errorType).toBe('timeout');
    expect(await activeParseThreads()).toBe(0);
  });
});
