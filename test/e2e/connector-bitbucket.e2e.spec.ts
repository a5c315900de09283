import { signupAccount } from '../factories/accounts';
import { BitbucketStandIn, startBitbucketStandIn } from '../support/bitbucket-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * create → test → browse → /v1/data/connect for bitbucket_repo, against a loopback stand-in of the Cloud 2.0 API and
 * of the Data Center / Server 1.0 API.
 */
describe('connector sources over HTTP: bitbucket_repo', () => {
  let bb: BitbucketStandIn;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    bb = await startBitbucketStandIn({ main: { 'sales.csv': 'region,units\nnorth,1\nsouth,2\n' } });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${bb.port}` });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    await bb.close();
  });

  it('creates, tests, browses and onboards a CSV file of the repository', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'repo',
        connector_type: 'bitbucket_repo',
        config: { workspace: 'acme', repo: 'data', token: 'bb-good', base_url: bb.cloudUrl },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({
      workspace: 'acme',
      repo: 'data',
      token: '********',
      base_url: bb.cloudUrl,
    });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toEqual([expect.objectContaining({ name: 'sales.csv', type: 'csv' })]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'bitbucket_repo',
        dataset_name: 'sales',
        connection_id: id,
        path: 'sales.csv',
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
  });

  it('does the same against a Bitbucket Data Center instance (base_url is the server root)', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'dc-repo',
        connector_type: 'bitbucket_repo',
        config: { workspace: 'ACME', repo: 'data', token: 'bb-good', base_url: bb.url },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({
      success: true,
      status: 'live',
      details: { full_name: 'ACME/data', main_branch: 'main', edition: 'data_center' },
    });

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toEqual([{ name: 'sales.csv', kind: 'file', type: 'csv', size: 29 }]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'bitbucket_repo',
        dataset_name: 'dc_sales',
        connection_id: id,
        path: 'sales.csv',
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
    expect(bb.requests).toContain('/rest/api/1.0/projects/ACME/repos/data/raw/sales.csv?at=main');
  });
});
