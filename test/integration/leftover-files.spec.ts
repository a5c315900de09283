import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, sharedSecretsEnv } from '../support/postgres';
import { makeTempDir, startTestApp } from '../support/test-app';

function place(path: string, bytes = 1024): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, Buffer.alloc(bytes, 7));
  return path;
}

describe('files left by a killed daemon', () => {
  it('are removed at start, in the daemon’s own directories only', async () => {
    const dataDir = makeTempDir();
    const elsewhere = makeTempDir();
    const hex = randomUUID().replace(/-/g, '');
    const datasets = join(dataDir, 'datasets');
    const uploads = join(dataDir, 'imports', 'uploads', 'org_1');
    const orgUploads = join(dataDir, 'imports', 'orgs', 'org_2', 'uploads');
    const gone = [
      place(join(datasets, 'ds_0a1b.duckdb.partial')),
      place(join(datasets, 'ds_0a1b.duckdb.partial.wal')),
      place(join(datasets, 'ds_0a1b.sqlite.partial')),
      place(join(datasets, 'ds_0a1b.sqlite.partial-journal')),
      place(join(datasets, 'ds_0a1b.summaries.sqlite.partial-journal')),
      place(join(datasets, 'ds_0a1b.summaries.sqlite.partial-0123456789ab')),
      place(join(datasets, 'ds_0a1b.summaries.sqlite.partial-0123456789ab-journal')),
      place(join(uploads, `.${hex}_sales.csv.partial`), 18 * 1024 * 1024),
      place(join(orgUploads, `.${hex}_sales.csv.partial`)),
      place(join(dataDir, 'run', 'connector-scratch', `object-${randomUUID()}`)),
    ];
    const kept = [
      place(join(datasets, 'ds_0c0d.sqlite')),
      place(join(uploads, `${hex}_done.csv`)),
      place(join(orgUploads, `${hex}_done.csv`)),
      // A finished upload the user named "notes.partial".
      place(join(orgUploads, `${hex}_notes.partial`)),
      place(join(dataDir, 'imports', 'orgs', 'org_2', `${hex}_placed.csv.partial`)),
      place(join(uploads, 'notes.partial')),
      place(join(dataDir, 'imports', `${hex}_operator.csv.partial`)),
      place(join(dataDir, 'run', 'connector-scratch', 'operator-notes')),
      place(join(elsewhere, `${hex}_linked.csv.partial`)),
    ];
    symlinkSync(elsewhere, join(dataDir, 'imports', 'uploads', 'org_link'));
    mkdirSync(join(dataDir, 'imports', 'orgs', 'org_3'), { recursive: true });
    symlinkSync(elsewhere, join(dataDir, 'imports', 'orgs', 'org_3', 'uploads'));
    expect(gone.every((path) => existsSync(path))).toBe(true);

    const t = await startTestApp({}, dataDir);
    try {
      expect(gone.filter((path) => existsSync(path))).toEqual([]);
      expect(kept.filter((path) => !existsSync(path))).toEqual([]);
    } finally {
      await t.close();
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('removes a dataset file published but never catalogued (a kill between its rename and its insert)', async () => {
    const dataDir = makeTempDir();
    const first = await startTestApp({}, dataDir);
    const signup = await first.request('POST', '/auth/signup', {
      body: { email: 'orphan@example.test', password: 'correct horse battery staple', name: 'O' },
    });
    const key = signup.body.api_key.raw_key;
    const connector = await first.request('POST', '/v1/connectors', {
      token: key,
      body: { name: 'csv', connector_type: 'file', config: { file_type: 'csv', content: 'a,b\n1,x\n2,y' } },
    });
    const kept = await first.request('POST', '/v1/data/connect', {
      token: key,
      body: { connection_type: 'file', connection_id: connector.body.id, dataset_name: 'kept' },
    });
    expect(kept.body.status).toBe('ready');
    await first.close(true);
    const orphanId = `ds_${'ab'.repeat(12)}`;
    const orphans = [
      place(join(dataDir, 'datasets', `${orphanId}.duckdb`)),
      // The previous format's files of a version no catalogue row names: removed the same way.
      place(join(dataDir, 'datasets', `${orphanId}.sqlite`)),
      place(join(dataDir, 'datasets', `${orphanId}.summaries.sqlite`)),
    ];

    const second = await startTestApp({}, dataDir);
    try {
      expect(orphans.filter((path) => existsSync(path))).toEqual([]);
      expect(existsSync(join(dataDir, 'datasets', `${kept.body.dataset_id}.duckdb`))).toBe(true);
      const query = await second.request('POST', '/v1/query', {
        token: key,
        body: { dataset_id: kept.body.dataset_id, select: ['a'] },
      });
      expect([query.status, query.body.rows?.length]).toEqual([200, 2]);
    } finally {
      await second.close();
    }
  });

  it('on a datasets dir shared by PostgreSQL replicas, leaves a partial file or upload another node is still writing', async () => {
    const dataDir = makeTempDir();
    const datasets = join(dataDir, 'datasets');
    // Replicas' uploads land on the shared storage too (<datasets dir>/imports), and are swept the same way.
    const uploads = join(datasets, 'imports', 'orgs', 'org_2', 'uploads');
    const hex = randomUUID().replace(/-/g, '');
    const building = [
      place(join(datasets, 'ds_0a1b.sqlite.partial')),
      place(join(datasets, 'ds_0a1b.summaries.sqlite.partial-0123456789ab')),
      place(join(uploads, `.${hex}_arriving.csv.partial`)),
    ];
    const abandoned = [
      place(join(datasets, 'ds_0c0d.sqlite.partial')),
      place(join(datasets, 'ds_0c0d.summaries.sqlite.partial-ba9876543210')),
      place(join(uploads, `.${hex}_abandoned.csv.partial`)),
    ];
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const path of abandoned) utimesSync(path, twoHoursAgo, twoHoursAgo);
    const database = await createTestDatabase();
    const t = await startTestApp(
      { ...sharedSecretsEnv(join(dataDir, 'keys')), SERVICE_DATABASE_URL: database.url },
      dataDir,
    );
    try {
      expect(building.filter((path) => !existsSync(path))).toEqual([]);
      expect(abandoned.filter((path) => existsSync(path))).toEqual([]);
    } finally {
      await t.close();
      await database.drop();
    }
  });
});
