import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DriverContext } from '../../src/modules/connectors/connector-driver';
import { fileDriver } from '../../src/modules/connectors/drivers/file';
import { importAreaFor } from '../../src/modules/connectors/local-path';
import { FileConfig } from '../../src/modules/connectors/connector-config';
import { buildFromPlainCsv } from '../../src/modules/datasets/csv-file-build';
import { scanPlainCsv } from '../../src/modules/datasets/csv-scan';
import { DatasetFileWriter, WrittenDataset } from '../../src/modules/datasets/dataset-file-writer';
import { datasetColumnTypes, readDatasetFile, TEST_BUILD } from '../support/dataset-files';
import { TestEgressGuard } from '../support/test-egress-guard';
import { parseLimits } from '../factories/parse-limits';

/**
 * A CSV file DuckDB reads itself (csv-file-build) must give the dataset the row-by-row writer gives: the same column
 * names, types, storage types, stored values and profile. Files it cannot vouch for go the row-by-row way.
 */

const scratch = mkdtempSync(join(tmpdir(), 'plain-csv-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function context(env: Record<string, string> = {}): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard([]),
    imports: importAreaFor(scratch, 'org_1', true, []),
    scratchDir: scratch,
    batchSize: 100,
    parseLimits: parseLimits(env),
    warn: () => undefined,
  };
}

let files = 0;

interface Built {
  readonly written: WrittenDataset;
  readonly rows: Record<string, unknown>[];
  readonly types: Record<string, string>;
}

async function contents(path: string, written: WrittenDataset): Promise<Built> {
  return {
    written: { ...written, bytes: 0 },
    rows: await readDatasetFile(path, 'select * from rows order by _row'),
    types: await datasetColumnTypes(path),
  };
}

function configFor(text: string | Buffer, extra: Partial<FileConfig>): FileConfig {
  const name = `f${++files}.csv`;
  writeFileSync(join(scratch, name), text);
  return { file_type: 'csv', file_path: name, ...extra };
}

async function direct(config: FileConfig, ctx: DriverContext): Promise<Built | undefined> {
  const plain = await fileDriver.plainCsv!(config, {}, ctx);
  if (plain === undefined) return undefined;
  const path = join(scratch, `${config.file_path}.direct.duckdb`);
  const written = await buildFromPlainCsv(plain, path, { ...TEST_BUILD, threads: 2 });
  // Nothing of the build is left under its partial name, built or not.
  expect(readdirSync(scratch).filter((name) => name.startsWith(`${basename(path)}.partial`))).toEqual([]);
  return written && contents(path, written);
}

async function bothWays(
  text: string | Buffer,
  extra: Partial<FileConfig> = {},
): Promise<{ direct: Built | undefined; rowByRow: Built }> {
  const config = configFor(text, extra);
  const ctx = context();
  const path = join(scratch, `${config.file_path}.rows.duckdb`);
  const writer = await DatasetFileWriter.create(path, TEST_BUILD);
  for await (const batch of fileDriver.readTables!(config, {}, ctx)) await writer.addBatch(batch);
  return { direct: await direct(config, ctx), rowByRow: await contents(path, await writer.finish()) };
}

async function expectSame(text: string | Buffer, extra: Partial<FileConfig> = {}): Promise<Built> {
  const { direct, rowByRow } = await bothWays(text, extra);
  expect(direct).toBeDefined();
  expect(direct).toEqual(rowByRow);
  return direct!;
}

async function expectRowByRow(text: string | Buffer, env: Record<string, string> = {}): Promise<void> {
  expect(await direct(configFor(text, {}), context(env))).toBeUndefined();
}

const lines = (...rows: string[]): string => rows.join('\n') + '\n';

describe('a CSV file read by DuckDB', () => {
  it('types integers, decimals, dates, booleans and text as the classifier does', async () => {
    const built = await expectSame(
      lines(
        'id,amount,price,day,flag,name,when',
        '1,10,1.50,2024-01-31,true,alpha,2024-02-01',
        '2,-3,0.1,2023-12-01,FALSE,beta,later',
        '3,999999999999999,-0.0,2024-02-30,True,gamma,',
        '4,0,123456789.012345,1999-01-01,false,"",2024-03-01',
      ).replace('""', 'delta'),
    );
    expect(built.types).toEqual({
      _row: 'BIGINT',
      id: 'BIGINT',
      amount: 'BIGINT',
      price: 'DECIMAL(18,6)',
      day: 'VARCHAR',
      flag: 'BOOLEAN',
      name: 'VARCHAR',
      when: 'VARCHAR',
    });
    expect(built.written.columns.map((c) => c.type)).toEqual([
      'integer',
      'integer',
      'number',
      'date',
      'boolean',
      'string',
      'string',
    ]);
  });

  it('classifies the same whatever kind the first rows lead with', async () => {
    // The first 10,000 rows decide which shape is tested first; the rows after them change every column's kinds.
    const rows = ['day,amount,count'];
    for (let i = 0; i < 12_000; i++) {
      const late = i >= 10_000;
      rows.push(
        `${late ? `note ${i % 7}` : `2024-0${1 + (i % 9)}-1${i % 10}`},${late ? i : `${i}.5`},${late ? `${i}.25` : i}`,
      );
    }
    const built = await expectSame(lines(...rows));
    expect(built.written.columns.map((c) => [c.name, c.type])).toEqual([
      ['day', 'string'],
      ['amount', 'number'],
      ['count', 'number'],
    ]);
  });

  it('stores a decimal column as DECIMAL and keeps empty cells null', async () => {
    const built = await expectSame(lines('a;b;c', '1.25;x;', '2.5;;7', ';y;8'));
    expect(built.types.a).toBe('DECIMAL(18,2)');
    const long = await expectSame(lines('x,y', '1234567890.123450000,-0.000000000000001234', '-0,5.0'));
    expect(long.written.columns.map((c) => c.type)).toEqual(['number', 'number']);
    expect(built.rows.map((r) => r.b)).toEqual(['x', null, 'y']);
  });

  it('profiles many rows the same: exact distinct counts, samples in row order, bounds', async () => {
    const rows = ['n,region,score,code'];
    for (let i = 0; i < 5000; i++) rows.push(`${(i * 7919) % 5000},r${i % 13},${(i % 97) / 4},k${i % 4100}`);
    const built = await expectSame(lines(...rows));
    expect(built.written.columns.find((c) => c.name === 'code')?.distinctEstimated).toBe(true);
  });

  it('stores text of few distinct values as a sorted ENUM that filters, sorts and answers as the text does', async () => {
    const names = ['b', 'B', 'a', 'é', 'a b', 'Z'];
    const rows = ['id,name,unique_text'];
    for (let i = 0; i < 60; i++) rows.push(`${i},${names[i % names.length]},u${i}`);
    const built = await expectSame(lines(...rows));
    expect(built.types.name).toBe("ENUM('B', 'Z', 'a', 'a b', 'b', 'é')");
    expect(built.types.unique_text).toBe('VARCHAR');
    const path = join(scratch, `f${files}.csv.direct.duckdb`);
    const asText = async (where: string): Promise<unknown[]> =>
      (await readDatasetFile(path, `select name from rows where ${where} order by name, _row`)).map(
        (r) => r.name,
      );
    const expected = (keep: (name: string) => boolean): string[] =>
      Array.from({ length: 60 }, (_, i) => names[i % names.length])
        .filter(keep)
        .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(await asText("name = 'zz'")).toEqual([]);
    expect(await asText("name < 'a c'")).toEqual(
      expected((n) => Buffer.compare(Buffer.from(n), Buffer.from('a c')) < 0),
    );
    expect(await asText("name in ('a', 'nope')")).toEqual(expected((n) => n === 'a'));
    expect(await asText("instr(name, ' ') > 0")).toEqual(expected((n) => n.includes(' ')));
    expect(await asText('true')).toEqual(expected(() => true));
  });

  it('names columns as the row-by-row reader does: blanks, duplicates, case, _row, a tab file', async () => {
    await expectSame(lines('a,,A,a,_row, b ', '1,2,3,4,5,6'));
    await expectSame(lines('x\ty', '1\t2', '3\t4'), { file_type: 'tsv' });
    await expectSame(lines('1,2,3', '4,5,6', '7,8,9'));
    await expectSame(lines('a,b', '1,2', '', '3,4'));
  });

  it('reads a line just within what DuckDB takes', async () => {
    const wide = Array.from({ length: 19 }, (_, i) => `c${i}`);
    await expectSame(lines(wide.join(','), wide.map((c) => c.padEnd(100_000, 'x')).join(',')));
  });

  it('keeps a byte-order mark out of the first name and reads non-ASCII text', async () => {
    await expectSame(Buffer.from('\ufeffnom,ville\n1,Zürich\n2,São Paulo\n3,東京\n', 'utf8'));
  });

  it('leaves files it cannot vouch for to the row-by-row reader', async () => {
    await expectRowByRow('a,b\n"1,5",2\n');
    await expectRowByRow('a,b\r\n1,2\r\n');
    await expectRowByRow(lines('a,b', '1,2', '3'));
    await expectRowByRow(lines('a,b', '1,2', '3,4,5'));
    await expectRowByRow(lines('a,b', '1,2', ' , ', '3,4'));
    await expectRowByRow(lines('a', '007', '1'));
    await expectRowByRow(lines('a', '1e5', '2'));
    await expectRowByRow(lines('a', '12345678901234567890'));
    await expectRowByRow(lines('a', '2024-01-01T10:00:00Z'));
    await expectRowByRow(lines('a', 'x', '1'));
    await expectRowByRow(lines('a', 'x', 'true'));
    await expectRowByRow(lines('a', '\ud83d\ude00', '\uffee'));
    await expectRowByRow(lines('a\ud83d\ude00', 'x'));
    await expectRowByRow(Buffer.concat([Buffer.from('a\nx'), Buffer.from([0xff]), Buffer.from('\n')]));
    await expectRowByRow(Buffer.from([0x61, 0x0a, 0xc0, 0x80, 0x0a])); // an overlong NUL
    await expectRowByRow(Buffer.from([0x61, 0x0a, 0xed, 0xa0, 0x80, 0x0a])); // a surrogate
    await expectRowByRow('a,b\n1,x\u0000y\n');
    await expectRowByRow('"a",b\n1,2\n');
    await expectRowByRow(lines('a', '1', '', '2'));
    // A line longer than DuckDB's reader takes (2,000,000 bytes), of cells each within the cell limit.
    const wide = Array.from({ length: 24 }, (_, i) => `c${i}`);
    await expectRowByRow(lines(wide.join(','), wide.map((c) => c.padEnd(100_000, 'x')).join(',')));
    await expectRowByRow(lines('a,b', '1,2'), { SERVICE_PARSE_MAX_CELLS: '1' });
    await expectRowByRow(lines('a,b,c', '1,2,3'), { SERVICE_PARSE_MAX_COLUMNS: '2' });
    await expectRowByRow('a,b\n');
  });

  it('fails a scan it cannot make without naming the file', async () => {
    const gone = join(scratch, 'gone.csv');
    const failure = scanPlainCsv(
      { path: gone, delimiter: ',', hasHeader: true, columns: ['a'], limits: parseLimits() },
      2,
    );
    await expect(failure).rejects.toThrow('csvscan: cannot open the file: No such file or directory');
    await expect(failure).rejects.not.toThrow(scratch);
  });
});
