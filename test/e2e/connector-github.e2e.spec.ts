import { signupAccount } from '../factories/accounts';
import { GithubStandIn, startGithubStandIn } from '../support/github-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect → query for github_repo, against a loopback stand-in of the REST API. */
describe('connector sources over HTTP: github_repo', () => {
  let gh: GithubStandIn;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    gh = await startGithubStandIn({ main: { 'data/sales.csv': 'region,units\nnorth,1\nsouth,2\n' } });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${gh.port}` });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    await gh.close();
  });

  it('creates, tests, browses and onboards a CSV file of the repository', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'repo',
        connector_type: 'github_repo',
        config: { owner: 'acme', repo: 'data', token: 'ghp_good', base_url: gh.url },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({
      owner: 'acme',
      repo: 'data',
      token: '********',
      base_url: gh.url,
    });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toContainEqual(
      expect.objectContaining({ name: 'data/sales.csv', kind: 'file', type: 'csv' }),
    );

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'github_repo',
        dataset_name: 'sales',
        connection_id: id,
        path: 'data/sales.csv',
      },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
    const rows = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: connected.body.dataset_id, select: ['region'], limit: 10 },
    });
    expect(rows.body.rows).toEqual([{ region: 'north' }, { region: 'south' }]);
  });
});
