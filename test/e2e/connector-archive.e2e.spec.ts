import { signupAccount } from '../factories/accounts';
import { tarGzArchive, zipArchive } from '../support/archives';
import { startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect for repo_archive: an upload and inline content, made by the test. */
describe('connector sources over HTTP: repo_archive', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
  });

  it('uploads a .tar.gz, then creates, tests, browses and onboards a CSV file inside it', async () => {
    const archive = tarGzArchive([
      { name: 'export/', type: 'directory' },
      { name: 'export/sales.csv', data: 'region,units\nnorth,1\nsouth,2\neast,3\n' },
      { name: 'export/README.md', data: 'hello' },
    ]);
    const uploaded = await t.request('POST', '/v1/connectors/uploads', {
      token,
      rawBody: archive,
      headers: { 'content-type': 'application/octet-stream', 'x-filename': 'export.tar.gz' },
    });
    expect(uploaded.status).toBe(201);

    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'export',
        connector_type: 'repo_archive',
        config: { file_path: uploaded.body.file_path },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({ file_path: uploaded.body.file_path });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({
      success: true,
      status: 'live',
      details: { format: 'tar.gz', entries: 3, files: 2, data_files: 1 },
    });

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.status).toBe(200);
    expect(browsed.body.items).toEqual([
      { name: 'export/sales.csv', kind: 'file', type: 'csv', size: 36 },
      { name: 'export/README.md', kind: 'file', size: 5 },
    ]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'repo_archive',
        dataset_name: 'archived_sales',
        connection_id: id,
        path: 'export/sales.csv',
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 3, columns: 2 } });

    const missingPath = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'repo_archive', dataset_name: 'nopath', connection_id: id },
    });
    expect(missingPath.status).toBe(422);
  });

  it('refuses inline archives with a traversal entry or a symlink leading out: unsafe_archive', async () => {
    const traversal = zipArchive([
      { name: 'ok.csv', data: 'a\n1\n' },
      { name: '../../etc/cron.d/evil', data: 'x' },
    ]);
    const tested = await t.request('POST', '/v1/connectors/test', {
      token,
      body: {
        connector_type: 'repo_archive',
        config: { content: traversal.toString('base64'), file_name: 'upload.zip' },
      },
    });
    expect(tested.body).toMatchObject({ success: false, error_type: 'unsafe_archive', recoverable: true });

    const symlink = tarGzArchive([{ name: 'data.csv', type: 'symlink', linkpath: '/etc/passwd' }]);
    const browsed = await t.request('POST', '/v1/connectors/browse', {
      token,
      body: {
        connector_type: 'repo_archive',
        config: { content: symlink.toString('base64'), file_name: 'upload.tgz' },
      },
    });
    expect(browsed.status).toBe(502);
    expect(browsed.body.error).toMatchObject({ code: 'connector_failed' });
    expect(JSON.stringify(browsed.body.error.details)).toContain('unsafe_archive');
  });

  it('answers 422 for a config without an archive', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: { name: 'empty', connector_type: 'repo_archive', config: { file_name: 'x.zip' } },
    });
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe('validation_failed');
  });
});
