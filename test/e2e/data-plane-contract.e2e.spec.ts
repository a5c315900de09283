import { SMALL_SIMULATION } from '../factories/simulations';
import { signupAccount } from '../factories/accounts';
import { expectMatchesContract } from '../support/contract';
import { startTestApp, TestApp } from '../support/test-app';
import { waitUntil } from '../support/wait';

const CSV = ['order_id,region,units,revenue', '1,West,2,20.5', '2,East,3,30', '3,West,1,10'].join('\n');

/** The query, simulate and jobs answers, success and failure, validated against their operations in the contract. */
describe('data-plane answers match the committed contract', () => {
  let t: TestApp;
  let token: string;
  let datasetId: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = (await signupAccount(t)).apiKey;
    const connector = await t.request('POST', '/v1/connectors', {
      token,
      body: { name: 'sales-file', connector_type: 'file', config: { file_type: 'csv', content: CSV } },
    });
    const connect = await t.request('POST', '/v1/data/connect', {
      token,
      body: { connection_type: 'file', dataset_name: 'sales', connection_id: connector.body.id },
    });
    expect(connect.body.status).toBe('ready');
    datasetId = connect.body.dataset_id as string;
  });
  afterAll(async () => {
    await t.close();
  });

  it('POST /v1/query, /v1/query/batch and /v1/query/sql', async () => {
    const typed = await t.request('POST', '/v1/query', {
      token,
      body: {
        dataset_id: datasetId,
        group_by: ['region'],
        aggregates: [{ function: 'sum', column: 'revenue' }, { function: 'count' }],
        order_by: [{ column: 'sum_revenue', direction: 'desc' }],
      },
    });
    expect(typed.status).toBe(200);
    expect(typed.body.rows).toEqual([
      { region: 'West', sum_revenue: 30.5, count_rows: 2 },
      { region: 'East', sum_revenue: 30, count_rows: 1 },
    ]);
    expectMatchesContract(typed, 'POST /v1/query');
    const natural = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: datasetId, query: 'top 1 region by total units' },
    });
    expect(natural.body.plan.interpretation.pattern).toBe('top_n');
    expectMatchesContract(natural, 'POST /v1/query');
    const invalid = await t.request('POST', '/v1/query', {
      token,
      body: { dataset_id: datasetId, where: [{ column: 'units', op: 'in', value: [1, 'two'] }] },
    });
    expect(invalid.body.error.details).toEqual([
      {
        field: 'where[0].value[1]',
        problem: 'must be a number for the integer column "units", got a string',
      },
    ]);
    expectMatchesContract(invalid, 'POST /v1/query');

    const batch = await t.request('POST', '/v1/query/batch', {
      token,
      body: {
        queries: [
          { dataset_id: datasetId, select: ['order_id'] },
          { dataset_id: datasetId, limit: 0 },
        ],
      },
    });
    expect(batch.body.results[1].error.details).toEqual([
      { field: 'limit', problem: 'must be between 1 and 10000' },
    ]);
    expectMatchesContract(batch, 'POST /v1/query/batch');

    const sql = await t.request('POST', '/v1/query/sql', {
      token,
      body: { dataset_id: datasetId, sql: 'select region, sum(units) as units from sales group by region' },
    });
    expect(sql.status).toBe(200);
    expectMatchesContract(sql, 'POST /v1/query/sql');
  });

  it('POST /v1/simulate and the jobs routes', async () => {
    const simulated = await t.request('POST', '/v1/simulate', { token, body: SMALL_SIMULATION });
    expect(simulated.status).toBe(200);
    expectMatchesContract(simulated, 'POST /v1/simulate');

    const submitted = await t.request('POST', '/v1/jobs', { token, body: { request: SMALL_SIMULATION } });
    expect(submitted.status).toBe(202);
    expectMatchesContract(submitted, 'POST /v1/jobs');
    const done = await waitUntil(
      async () => {
        const res = await t.request('GET', `/v1/jobs/${submitted.body.job_id}`, { token });
        return res.body.status === 'succeeded' ? res : undefined;
      },
      20000,
      'the job to succeed',
    );
    expectMatchesContract(done, 'GET /v1/jobs/{id}');
    expectMatchesContract(await t.request('GET', '/v1/jobs?limit=1', { token }), 'GET /v1/jobs');
    const cancelled = await t.request('DELETE', `/v1/jobs/${submitted.body.job_id}`, { token });
    expectMatchesContract(cancelled, 'DELETE /v1/jobs/{id}');
    expectMatchesContract(await t.request('GET', '/v1/jobs/job_missing', { token }), 'GET /v1/jobs/{id}');
  });
});
