import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequestRaw } from 'node:http';
import { join } from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const MB = 1024 * 1024;

function csv(rows: number): string {
  return [
    'id,region,note',
    ...Array.from(
      { length: rows },
      (_, i) => `${i},r${i % 7},${i.toString(36).padStart(12, 'n')}-${'q'.repeat(20)}`,
    ),
  ].join('\n');
}

/** A chunked upload with no Content-Length, so only the streamed byte count can stop it. */
function chunkedUpload(
  baseUrl: string,
  token: string,
  total: number,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequestRaw(
      `${baseUrl}/v1/connectors/uploads`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/octet-stream',
          'x-filename': 'streamed.bin',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 66);
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

describe('per-organization storage quota (SERVICE_ORG_STORAGE_QUOTA_MB=1)', () => {
  let t: TestApp;
  let keyA: string;
  let keyB: string;
  let orgA: string;

  const signup = async (email: string): Promise<{ key: string; org: string }> => {
    const res = await t.request('POST', '/auth/signup', {
      body: { email, password: 'correct horse battery', name: 'Q' },
    });
    expect(res.status).toBe(201);
    return { key: res.body.api_key.raw_key, org: res.body.organization.id };
  };
  const uploadsOf = (org: string): string[] =>
    readdirSync(join(t.config.importDir, 'orgs', org, 'uploads')).sort();
  // With SERVICE_DATABASE_URL the import dir defaults to <datasets dir>/imports (docs/scale-out.md): not a dataset file.
  const datasetFiles = (): string[] =>
    readdirSync(t.config.datasetsDir)
      .filter((name) => join(t.config.datasetsDir, name) !== t.config.importDir)
      .sort();
  const upload = (token: string, bytes: number, name: string) =>
    t.request('POST', '/v1/connectors/uploads', {
      token,
      rawBody: Buffer.alloc(bytes, 65),
      headers: { 'content-type': 'application/octet-stream', 'x-filename': name },
    });
  const connect = async (token: string, name: string, content: string) => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: { name, connector_type: 'file', config: { file_type: 'csv', content } },
    });
    expect(created.status).toBe(201);
    return t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'file', dataset_name: name, connection_id: created.body.id },
    });
  };

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_ORG_STORAGE_QUOTA_MB: '1', ENGINE_POOL_SIZE: '0' });
    ({ key: keyA, org: orgA } = await signup('a@example.com'));
    ({ key: keyB } = await signup('b@example.com'));
  });

  afterAll(async () => {
    await t?.close();
  });

  it('accepts an upload that fits', async () => {
    const res = await upload(keyA, 300 * 1024, 'fits.bin');
    expect(res.status).toBe(201);
    expect(res.body.bytes).toBe(300 * 1024);
    expect(uploadsOf(orgA)).toHaveLength(1);
  });

  it('answers 507 at once for a declared Content-Length over the remaining quota, naming quota and usage', async () => {
    const res = await upload(keyA, 800 * 1024, 'too-big.bin');
    expect([res.status, res.body.error?.code]).toEqual([507, 'insufficient_storage']);
    expect(res.body.error.message).toContain(`${MB} bytes`);
    expect(res.body.error.message).toContain(`${300 * 1024} bytes are in use`);
    expect(uploadsOf(orgA)).toHaveLength(1);
  });

  it('stops a streamed upload that crosses the quota and removes its partial file', async () => {
    const res = await chunkedUpload(t.baseUrl, keyA, 2 * MB);
    expect([res.status, res.body.error?.code]).toEqual([507, 'insufficient_storage']);
    expect(res.body.error.message).toContain(`${MB} bytes`);
    expect(uploadsOf(orgA)).toHaveLength(1);
  });

  it('leaves another organization unaffected', async () => {
    const res = await upload(keyB, 800 * 1024, 'b.bin');
    expect(res.status).toBe(201);
  });

  it('counts the legacy uploads folder too', async () => {
    const { key, org } = await signup('c@example.com');
    const legacy = join(t.config.importDir, 'uploads', org);
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'old.csv'), Buffer.alloc(900 * 1024, 67));
    const res = await upload(key, 200 * 1024, 'new.bin');
    expect([res.status, res.body.error?.code]).toEqual([507, 'insufficient_storage']);
    expect(res.body.error.message).toContain(`${900 * 1024} bytes are in use`);
  });

  it('refuses a data connect over the quota with 507 and keeps no file; deleting a dataset frees room', async () => {
    // An organization with nothing stored yet: a DuckDB file takes at least ~0.8 MB (256 KiB blocks).
    const { key } = await signup('d@example.com');
    const first = await connect(key, 'first', csv(8000));
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('ready');
    const firstBytes = statSync(join(t.config.datasetsDir, `${first.body.dataset_id}.duckdb`)).size;
    expect(2 * firstBytes).toBeGreaterThan(MB);
    const others = datasetFiles();

    const second = await connect(key, 'second', csv(8000));
    expect([second.status, second.body.error?.code]).toEqual([507, 'insufficient_storage']);
    const inUse = Number(/(\d+) bytes are in use/.exec(second.body.error.message)?.[1]);
    expect(inUse).toBeGreaterThanOrEqual(firstBytes);
    expect(datasetFiles()).toEqual(others);
    const listed = await t.request('GET', '/v1/data', { token: key });
    expect(listed.body.datasets.map((d: { dataset_name: string }) => d.dataset_name)).toEqual(['first']);

    const deleted = await t.request('DELETE', `/v1/data/${first.body.dataset_id}`, { token: key });
    expect(deleted.status).toBe(204);
    const again = await connect(key, 'second', csv(8000));
    // The message names what refused it (quota, full disk) if this ever fails: once seen in CI, not reproduced.
    expect([again.status, again.body.error?.message]).toEqual([200, undefined]);
    expect(again.body.status).toBe('ready');
  });
});
