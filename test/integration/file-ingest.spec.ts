import { parquetWriteBuffer } from 'hyparquet-writer';
import { xlsx } from '../factories/xlsx';
import { startTestApp, TestApp } from '../support/test-app';

let counter = 0;

/** Small enough that a test file crosses it cheaply; the tests before it have no cell near it. */
const MAX_CELL_BYTES = 64 * 1024;

async function signUp(t: TestApp): Promise<string> {
  counter += 1;
  const res = await t.request('POST', '/auth/signup', {
    body: {
      email: `ingest${counter}-${Date.now()}@example.test`,
      password: 'correct horse battery',
      name: 'I',
    },
  });
  expect(res.status).toBe(201);
  return res.body.api_key.raw_key as string;
}

async function fileConnector(t: TestApp, token: string, config: object): Promise<string> {
  const res = await t.request('POST', '/v1/connectors', {
    token,
    body: { name: `file${++counter}`, connector_type: 'file', config },
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function connect(t: TestApp, token: string, id: string, name: string): Promise<any> {
  const res = await t.request('POST', '/v1/data/connect', {
    token,
    body: { connection_type: 'file', dataset_name: name, connection_id: id },
  });
  expect(res.status).toBe(200);
  return res.body;
}

describe('file ingest', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_PARSE_MAX_CELL_BYTES: String(MAX_CELL_BYTES) });
    token = await signUp(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('ingests a __proto__ column of a CSV and of JSON records like any other', async () => {
    const csv = await connect(
      t,
      token,
      await fileConnector(t, token, { file_type: 'csv', content: 'id,__proto__\n1,a\n2,b\n' }),
      'proto_csv',
    );
    expect(csv).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
    const csvSchema = await t.request('GET', `/v1/data/${csv.dataset_id}/schema`, { token });
    expect(csvSchema.body.columns.map((c: { name: string }) => c.name)).toEqual(['id', '__proto__']);

    const json = await connect(
      t,
      token,
      await fileConnector(t, token, {
        file_type: 'json',
        content: '[{"id": 1, "__proto__": ["x", "y"]}, {"id": 2, "__proto__": null}]',
      }),
      'proto_json',
    );
    expect(json).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
    const jsonSchema = await t.request('GET', `/v1/data/${json.dataset_id}/schema`, { token });
    expect(jsonSchema.body.columns.map((c: { name: string }) => c.name)).toEqual(['id', '__proto__']);
  });

  it('refuses decompression bombs as invalid_payload and ingests nothing', async () => {
    const book = await t.request('POST', '/v1/connectors/test', {
      token,
      body: {
        connector_type: 'file',
        config: { file_type: 'excel', content: xlsx(3, 64 * 1024 * 1024).toString('base64') },
      },
    });
    expect(book.status).toBe(200);
    expect(book.body).toMatchObject({ success: false, error_type: 'invalid_payload' });
    expect(book.body.message).toMatch(/SERVICE_PARSE_MAX_EXPANSION_RATIO/);

    const parquet = Buffer.from(
      parquetWriteBuffer({
        columnData: [{ name: 'zero', data: new Int32Array(3_000_000), type: 'INT32' }],
        rowGroupSize: 3_000_000,
      }),
    );
    const id = await fileConnector(t, token, { file_type: 'parquet', content: parquet.toString('base64') });
    const res = await connect(t, token, id, 'parquet_bomb');
    expect(res.status).toBe('failed');
    expect(res.message).toMatch(/SERVICE_PARSE_MAX_EXPANSION_RATIO/);
    expect((await t.request('GET', '/v1/data?search=parquet_bomb', { token })).body.datasets).toEqual([]);
  });

  it('fails an ingest with a cell over SERVICE_PARSE_MAX_CELL_BYTES, naming the column', async () => {
    const big = 'é'.repeat(MAX_CELL_BYTES / 2 + 1);
    const sources = {
      csv: { file_type: 'csv', content: `id,notes\n1,short\n2,${big}\n` },
      json: {
        file_type: 'json',
        content: JSON.stringify([
          { id: 1, notes: 'short' },
          { id: 2, notes: big },
        ]),
      },
      parquet: {
        file_type: 'parquet',
        content: Buffer.from(
          parquetWriteBuffer({ columnData: [{ name: 'notes', data: ['short', big], type: 'STRING' }] }),
        ).toString('base64'),
      },
    };
    for (const [format, config] of Object.entries(sources)) {
      const res = await connect(t, token, await fileConnector(t, token, config), `big_cell_${format}`);
      expect([format, res.status, res.message]).toEqual([
        format,
        'failed',
        `A cell of column "notes" is larger than the ${MAX_CELL_BYTES} bytes allowed (SERVICE_PARSE_MAX_CELL_BYTES).`,
      ]);
      const listed = await t.request('GET', `/v1/data?search=big_cell_${format}`, { token });
      expect(listed.body.datasets).toEqual([]);
    }
  });

  it('ingests a cell just within SERVICE_PARSE_MAX_CELL_BYTES', async () => {
    const content = `id,notes\n1,${'é'.repeat(MAX_CELL_BYTES / 2)}\n`;
    const res = await connect(
      t,
      token,
      await fileConnector(t, token, { file_type: 'csv', content }),
      'edge_cell',
    );
    expect(res).toMatchObject({ status: 'ready', schema_summary: { rows: 1, columns: 2 } });
  });
});
