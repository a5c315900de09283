import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { signupAccount } from '../factories/accounts';
import { pushTrigger } from '../factories/triggers';
import { connectStdio, connectStreamable, structured, toolErrorOf } from '../support/mcp-clients';
import { writeTestLicense } from '../support/licenses';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';

const ALL_TOOLS = [
  'get_contract',
  'list_data',
  'get_data_summary',
  'get_data_schema',
  'query_data',
  'fit_distribution',
  'query_batch',
  'query_sql_report',
  'create_connector',
  'list_triggers',
  'create_trigger',
  'fire_trigger',
  'report_trigger_outcome',
  'list_runtime_libraries',
  'execute_runtime_library',
];

/** A daemon booted with a real license, signed by the test key, that carries every entitlement. */
function startLicensedApp(env: Record<string, string>): Promise<TestApp> {
  const dataDir = makeTempDir();
  return startTestApp({ ...writeTestLicense(dataDir), ...env }, dataDir);
}

const CSV = ['id,team,score', '1,red,10', '2,blue,20', '3,red,30', '4,blue,40'].join('\n');

describe('MCP surface with a license carrying mcp and runtime_library', () => {
  let t: TestApp;
  let token: string;
  let client: Client;
  let datasetId: string;

  beforeAll(async () => {
    t = await startLicensedApp({ SERVICE_RUNTIME_SUPERVISE: 'true' });
    token = (await signupAccount(t)).apiKey;
    ({ client } = await connectStreamable(t.baseUrl, token));
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('lists all fourteen tools; only create_connector and the trigger writes are not read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    expect(tools.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name)).toEqual([
      'create_connector',
      'create_trigger',
      'fire_trigger',
      'report_trigger_outcome',
    ]);
    const fire = tools.find((tool) => tool.name === 'fire_trigger')!;
    expect(fire.inputSchema.required).toEqual(['trigger_id']);
    expect(Object.keys(fire.inputSchema.properties ?? {}).sort()).toEqual(['current_value', 'trigger_id']);
    const create = tools.find((tool) => tool.name === 'create_trigger')!;
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['name', 'condition', 'simulation']));
    const res = await t.request('GET', '/mcp/tools', { token });
    expect(res.body.tools.map((tool: any) => tool.name)).toEqual(ALL_TOOLS);
  });

  it('create_connector creates a connector that data connect can read', async () => {
    const created = structured(
      await client.callTool({
        name: 'create_connector',
        arguments: { name: 'scores', connector_type: 'csv', config: { content: CSV } },
      }),
    );
    expect(created).toMatchObject({ connector_type: 'file', status: 'untested' });
    const connect = await t.request('POST', '/v1/data/connect', {
      token,
      body: {
        connection_type: 'file',
        dataset_name: 'scores',
        connection_id: created.id,
        visibility: 'private',
      },
    });
    expect(connect.body).toMatchObject({ status: 'ready', schema_summary: { rows: 4, columns: 3 } });
    datasetId = connect.body.dataset_id;
    const invalid = toolErrorOf(
      await client.callTool({ name: 'create_connector', arguments: { name: '', connector_type: 'file' } }),
    );
    expect(invalid.code).toBe('validation_failed');
    const unknownType = toolErrorOf(
      await client.callTool({
        name: 'create_connector',
        arguments: { name: 'x', connector_type: 'telepathy' },
      }),
    );
    expect(unknownType.code).toBe('invalid_type');
  });

  it('query_batch answers one result or error per query, in order', async () => {
    const batch = structured(
      await client.callTool({
        name: 'query_batch',
        arguments: {
          queries: [
            { dataset_id: datasetId, select: ['id'], where: [{ column: 'team', op: 'eq', value: 'red' }] },
            { dataset_id: 'missing', select: ['id'] },
          ],
        },
      }),
    );
    expect(batch.results).toHaveLength(2);
    expect(batch.results[0].rows).toEqual([{ id: 1 }, { id: 3 }]);
    expect(batch.results[1].error.code).toBe('dataset_not_found');
  });

  it('query_sql_report runs one read-only SELECT and refuses anything else', async () => {
    const report = structured(
      await client.callTool({
        name: 'query_sql_report',
        arguments: {
          dataset_id: datasetId,
          sql: 'SELECT team, SUM(score) AS total FROM scores GROUP BY team ORDER BY team',
        },
      }),
    );
    expect(report.rows).toEqual([
      { team: 'blue', total: 60 },
      { team: 'red', total: 40 },
    ]);
    const refused = toolErrorOf(
      await client.callTool({
        name: 'query_sql_report',
        arguments: { dataset_id: datasetId, sql: 'DELETE FROM scores' },
      }),
    );
    expect(refused.code).toBe('read_only_violation');
  });

  it('list_runtime_libraries filters modules and functions', async () => {
    const all = structured(await client.callTool({ name: 'list_runtime_libraries', arguments: {} }));
    expect(all.runtime_health.status).toBe('ok');
    expect(all.module_count).toBe(4);
    expect(all.libraries.map((l: any) => l.name)).toEqual(['stats', 'finance', 'decision', 'distributions']);
    const npv = structured(
      await client.callTool({ name: 'list_runtime_libraries', arguments: { search: 'npv' } }),
    );
    expect(npv.libraries).toEqual([{ name: 'finance', engine: 'native', functions: ['npv'] }]);
    const limited = structured(
      await client.callTool({ name: 'list_runtime_libraries', arguments: { limit: 1 } }),
    );
    expect(limited.libraries.map((l: any) => l.name)).toEqual(['stats']);
    expect(limited.module_count).toBe(4);
  });

  it('execute_runtime_library returns the value and surfaces the runtime message on failure', async () => {
    const npv = structured(
      await client.callTool({
        name: 'execute_runtime_library',
        arguments: {
          module: 'finance',
          function: 'npv',
          args: { rate: 0.1, cashflows: [-100, 60, 60] },
          request_id: 'r-1',
        },
      }),
    );
    expect(npv).toMatchObject({ module: 'finance', function: 'npv', engine_used: 'native', success: true });
    expect(npv.result).toBeCloseTo(4.1322314049586, 12);
    expect(npv.args).toEqual({ rate: 0.1, cashflows: [-100, 60, 60] });
    expect(npv.latency_ms).toEqual(expect.any(Number));
    const irr = structured(
      await client.callTool({
        name: 'execute_runtime_library',
        arguments: { module: 'finance', function: 'irr', args: [-100, 60, 60] },
      }),
    );
    expect(irr.result).toBeCloseTo(0.130662386, 9);
    const p90 = structured(
      await client.callTool({
        name: 'execute_runtime_library',
        arguments: { module: 'stats', function: 'percentile', args: { values: [10, 20, 30, 40, 50], p: 90 } },
      }),
    );
    expect(p90.result).toBeCloseTo(46, 12);
    const failed = toolErrorOf(
      await client.callTool({
        name: 'execute_runtime_library',
        arguments: { module: 'finance', function: 'irr', args: [[100, 60]] },
      }),
    );
    expect(failed.code).toBe('runtime_execution_failed');
    expect(failed.message).toMatch(/irr/i);
  });

  it('create_trigger, list_triggers and fire_trigger act as the trigger endpoints do', async () => {
    const created = structured(
      await client.callTool({ name: 'create_trigger', arguments: pushTrigger({ name: 'mcp stock' }) }),
    );
    expect(created).toMatchObject({ name: 'mcp stock', state: 'inactive', enabled: true });
    const listed = structured(await client.callTool({ name: 'list_triggers', arguments: { limit: 500 } }));
    expect(listed.triggers.map((tr: any) => tr.id)).toContain(created.id);
    const fired = structured(
      await client.callTool({
        name: 'fire_trigger',
        arguments: { trigger_id: created.id, current_value: 42 },
      }),
    );
    expect(fired).toMatchObject({ trigger_id: created.id, condition_met: true, current_value: 42 });
    expect(fired.run_id).toMatch(/^run_/);
    const history = await t.request('GET', `/v1/triggers/${created.id}/fires`, { token });
    expect(history.body.fires.map((f: any) => f.fire_id)).toEqual([fired.fire_id]);

    const missingValue = toolErrorOf(
      await client.callTool({ name: 'fire_trigger', arguments: { trigger_id: created.id } }),
    );
    expect(missingValue.code).toBe('validation_failed');
    const notFinite = toolErrorOf(
      await client.callTool({
        name: 'fire_trigger',
        arguments: { trigger_id: created.id, current_value: 'x' },
      }),
    );
    expect(notFinite.code).toBe('validation_failed');
    const unknown = toolErrorOf(
      await client.callTool({
        name: 'fire_trigger',
        arguments: { trigger_id: 'trg_missing', current_value: 1 },
      }),
    );
    expect(unknown.code).toBe('not_found');

    const outcome = structured(
      await client.callTool({
        name: 'report_trigger_outcome',
        arguments: { trigger_id: created.id, fire_id: fired.fire_id, realized_value: 150 },
      }),
    );
    expect(outcome).toMatchObject({ fire_id: fired.fire_id, realized_value: 150 });
    expect(typeof outcome.inside_band).toBe('boolean');
    const twice = toolErrorOf(
      await client.callTool({
        name: 'report_trigger_outcome',
        arguments: { trigger_id: created.id, fire_id: fired.fire_id, realized_value: 150 },
      }),
    );
    expect(twice.code).toBe('conflict');
    const noFire = toolErrorOf(
      await client.callTool({
        name: 'report_trigger_outcome',
        arguments: { trigger_id: created.id, fire_id: 'fire_missing', realized_value: 1 },
      }),
    );
    expect(noFire.code).toBe('not_found');
    const badInterval = toolErrorOf(
      await client.callTool({
        name: 'create_trigger',
        arguments: pushTrigger({ schedule: { interval_s: 5 } }),
      }),
    );
    expect(badInterval.code).toBe('validation_failed');
  });

  it('relays the licensed tools over stdio', async () => {
    const stdio = await connectStdio(t.baseUrl, token);
    try {
      expect((await stdio.listTools()).tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
      const describe = structured(
        await stdio.callTool({
          name: 'execute_runtime_library',
          arguments: { module: 'stats', function: 'describe', args: [[1, 2, 3, 4]] },
        }),
      );
      expect(describe.result).toMatchObject({ count: 4, mean: 2.5, median: 2.5, min: 1, max: 4 });
    } finally {
      await stdio.close();
    }
  });
});

describe('runtime tools when the runtime daemon is not running', () => {
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    t = await startLicensedApp({ SERVICE_RUNTIME_SUPERVISE: 'false' });
    ({ client } = await connectStreamable(t.baseUrl, (await signupAccount(t)).apiKey));
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('both tools tell the caller to start the local runtime', async () => {
    for (const [name, args] of [
      ['list_runtime_libraries', {}],
      ['execute_runtime_library', { module: 'finance', function: 'npv', args: [0.1, [-100, 60, 60]] }],
    ] as const) {
      const error = toolErrorOf(await client.callTool({ name, arguments: args }));
      expect([name, error.code]).toEqual([name, 'runtime_unavailable']);
      expect(error.message).toContain('start the local runtime');
    }
  });
});
