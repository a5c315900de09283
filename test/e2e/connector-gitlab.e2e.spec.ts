import { signupAccount } from '../factories/accounts';
import { GitlabStandIn, startGitlabStandIn } from '../support/gitlab-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/** create → test → browse → /v1/data/connect → query for gitlab_repo, against a loopback stand-in of the v4 API. */
describe('connector sources over HTTP: gitlab_repo', () => {
  let gl: GitlabStandIn;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    gl = await startGitlabStandIn({ main: { 'sales.csv': 'region,units\nnorth,1\nsouth,2\n' } });
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${gl.port}` });
    token = (await signupAccount(t)).apiKey;
  });

  afterAll(async () => {
    await t.close();
    await gl.close();
  });

  it('creates, tests, browses and onboards a CSV file of the project', async () => {
    const created = await t.request('POST', '/v1/connectors', {
      token,
      body: {
        name: 'repo',
        connector_type: 'gitlab_repo',
        config: { project: 'acme/data', token: 'glpat-good', base_url: gl.url },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.config).toEqual({ project: 'acme/data', token: '********', base_url: gl.url });
    const id = created.body.id as string;

    const tested = await t.request('POST', `/v1/connectors/${id}/test`, { token });
    expect(tested.body).toMatchObject({ success: true, status: 'live' });

    const browsed = await t.request('GET', `/v1/connectors/${id}/browse`, { token });
    expect(browsed.body.items).toEqual([expect.objectContaining({ name: 'sales.csv', type: 'csv' })]);

    const connected = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'gitlab_repo', dataset_name: 'sales', connection_id: id, path: 'sales.csv' },
    });
    expect(connected.body).toMatchObject({ status: 'ready', schema_summary: { rows: 2, columns: 2 } });
  });
});
