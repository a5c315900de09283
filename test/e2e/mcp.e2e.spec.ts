import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { signupAccount, TestAccount } from '../factories/accounts';
import { connectSse, connectStdio, connectStreamable, structured, toolErrorOf } from '../support/mcp-clients';
import { startTestApp, TestApp } from '../support/test-app';
import { expectMatchesContract } from '../support/contract';

const COMMUNITY_TOOLS = [
  'get_contract',
  'list_data',
  'get_data_summary',
  'get_data_schema',
  'query_data',
  'fit_distribution',
];

const CSV = [
  'order_id,region,units,revenue',
  ...Array.from(
    { length: 20 },
    (_, i) => `${i + 1},${['West', 'East'][i % 2]},${1 + (i % 4)},${(i + 1) * 10}`,
  ),
].join('\n');

async function createDataset(t: TestApp, token: string, name: string): Promise<string> {
  const connector = await t.request('POST', '/v1/connectors', {
    token,
    body: { name: `${name}-file`, connector_type: 'file', config: { file_type: 'csv', content: CSV } },
  });
  expect(connector.status).toBe(201);
  const connect = await t.request('POST', '/v1/data/connect', {
    token,
    body: {
      connection_type: 'file',
      dataset_name: name,
      connection_id: connector.body.id,
      visibility: 'private',
    },
  });
  expect(connect.body).toMatchObject({ status: 'ready', schema_summary: { rows: 20, columns: 4 } });
  return connect.body.dataset_id as string;
}

/** Opens GET /mcp/sse by hand and reads the session id from its `endpoint` event. */
async function openRawSse(baseUrl: string, key: string): Promise<{ sessionId: string; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/mcp/sse`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value } = await reader.read();
    text += Buffer.from(value).toString('utf8');
  }
  const endpoint = /data: (.+)/.exec(text)![1];
  return {
    sessionId: new URL(endpoint, baseUrl).searchParams.get('sessionId')!,
    close: () => controller.abort(),
  };
}

describe('MCP surface, community edition', () => {
  let t: TestApp;
  let owner: TestAccount;
  let secondKey: string;
  let datasetId: string;
  let client: Client;
  let sessionId: string | undefined;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await signupAccount(t);
    const created = await t.request('POST', '/v1/api-keys', {
      token: owner.apiKey,
      body: { label: 'second' },
    });
    expect(created.status).toBe(201);
    secondKey = created.body.raw_key;
    datasetId = await createDataset(t, owner.apiKey, 'orders');
    const connected = await connectStreamable(t.baseUrl, owner.apiKey);
    client = connected.client;
    sessionId = connected.transport.sessionId;
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('lists exactly the community tools, with schemas and read-only annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(COMMUNITY_TOOLS);
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const query = tools.find((tool) => tool.name === 'query_data');
    expect(query?.inputSchema.required).toEqual(['dataset_id']);
  });

  it('GET /mcp/tools shows the same tools with their input schemas', async () => {
    const res = await t.request('GET', '/mcp/tools', { token: owner.apiKey });
    expect(res.status).toBe(200);
    expectMatchesContract(res, 'GET /mcp/tools');
    expect(res.body.tools.map((tool: any) => tool.name)).toEqual(COMMUNITY_TOOLS);
    expect(res.body.tools[1]).toMatchObject({ name: 'list_data', input_schema: { type: 'object' } });
    expect(Object.keys(res.body.tools[1].input_schema.properties).sort()).toEqual(['compact', 'search']);
  });

  it('derives each input schema from the DTO the route validates with, and validates with it', async () => {
    const { tools } = await client.listTools();
    const contract = (await t.request('GET', '/v1/openapi.json', { token: owner.apiKey })).body;
    const query = tools.find((tool) => tool.name === 'query_data')!;
    const body = contract.paths['/v1/query'].post.requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: '#/components/schemas/QueryRequest' });
    expect(Object.keys(query.inputSchema.properties!).sort()).toEqual(
      Object.keys(contract.components.schemas.QueryRequest.properties).sort(),
    );
    const condition = (query.inputSchema.properties as any).where.items;
    expect(condition).toEqual(contract.components.schemas.WhereDto);
    expect(JSON.stringify(query.inputSchema)).not.toContain('$ref');
    const call = async (where: unknown[]) =>
      toolErrorOf(await client.callTool({ name: 'query_data', arguments: { dataset_id: datasetId, where } }));
    const shape = await call([
      { column: 'region', op: 'eq', value: 'East' },
      { column: 'region', op: 'like' },
    ]);
    expect(shape.details).toEqual([
      { field: 'where[1].op', problem: expect.stringContaining('must be one of eq, ne') },
    ]);
    expect((await call([{ column: 'region', op: 'in', value: ['East', 3] }])).details).toEqual([
      { field: 'where[0].value[1]', problem: 'must be a string for the text column "region", got a number' },
    ]);
  });

  it('list_data, get_data_summary and get_data_schema answer from the dataset', async () => {
    const compact = structured(await client.callTool({ name: 'list_data', arguments: { compact: true } }));
    expect(compact.datasets).toEqual([
      { id: datasetId, dataset_name: 'orders', version: 1, rows: 20, columns: 4 },
    ]);
    const searched = structured(
      await client.callTool({ name: 'list_data', arguments: { search: 'revenue' } }),
    );
    expect(searched.datasets.map((d: any) => d.id)).toEqual([datasetId]);
    const none = structured(
      await client.callTool({ name: 'list_data', arguments: { search: 'nothing-like-it' } }),
    );
    expect(none.datasets).toEqual([]);
    const summary = structured(
      await client.callTool({ name: 'get_data_summary', arguments: { dataset_id: datasetId } }),
    );
    expect(summary).toMatchObject({ rows: 20, columns: 4, dataset_name: 'orders' });
    const schema = structured(
      await client.callTool({ name: 'get_data_schema', arguments: { dataset_id: datasetId } }),
    );
    expect(schema.columns.map((c: any) => `${c.name}:${c.type}`)).toEqual([
      'order_id:integer',
      'region:string',
      'units:integer',
      'revenue:integer',
    ]);
  });

  it('fit_distribution answers as POST /v1/data/{id}/fit', async () => {
    const args = { dataset_id: datasetId, column: 'revenue', families: ['uniform', 'normal'] };
    const viaTool = structured(await client.callTool({ name: 'fit_distribution', arguments: args }));
    const { dataset_id: _id, ...body } = args;
    const viaHttp = await t.request('POST', `/v1/data/${datasetId}/fit`, { token: owner.apiKey, body });
    expect(viaHttp.status).toBe(200);
    expect(viaTool).toEqual(viaHttp.body);
    expect(viaTool.n).toBe(20);
    const uniform = viaTool.candidates.find((c: { family: string }) => c.family === 'uniform');
    expect(uniform.params).toEqual({ min: 10, max: 200 });
  });

  it('query_data returns the same rows as POST /v1/query', async () => {
    const body = {
      dataset_id: datasetId,
      select: ['order_id', 'revenue'],
      where: [{ column: 'region', op: 'eq', value: 'East' }],
      order_by: [{ column: 'revenue', direction: 'desc' }],
      limit: 3,
    };
    const viaTool = structured(await client.callTool({ name: 'query_data', arguments: body }));
    const viaHttp = await t.request('POST', '/v1/query', { token: owner.apiKey, body });
    expect(viaHttp.status).toBe(200);
    expect(viaTool.rows).toEqual(viaHttp.body.rows);
    expect(viaTool.rows).toEqual([
      { order_id: 20, revenue: 200 },
      { order_id: 18, revenue: 180 },
      { order_id: 16, revenue: 160 },
    ]);
  });

  it('answers errors as isError results carrying the API error code', async () => {
    const missing = toolErrorOf(
      await client.callTool({ name: 'get_data_schema', arguments: { dataset_id: 'nope' } }),
    );
    expect(missing.code).toBe('dataset_not_found');
    const invalid = toolErrorOf(
      await client.callTool({ name: 'query_data', arguments: { dataset_id: datasetId, limit: 0 } }),
    );
    expect(invalid.code).toBe('validation_failed');
    expect(invalid.details).toEqual([expect.objectContaining({ field: 'limit' })]);
    const badColumn = toolErrorOf(
      await client.callTool({ name: 'query_data', arguments: { dataset_id: datasetId, select: ['nope'] } }),
    );
    expect(badColumn.code).toBe('validation_failed');
    const hidden = toolErrorOf(await client.callTool({ name: 'query_batch', arguments: { queries: [] } }));
    expect(hidden.code).toBe('not_entitled');
    const unknown = toolErrorOf(await client.callTool({ name: 'no_such_tool', arguments: {} }));
    expect(unknown.code).toBe('not_found');
  });

  it('get_contract returns the OpenAPI 3.1 document of every route', async () => {
    const contract = structured(await client.callTool({ name: 'get_contract', arguments: {} }));
    expect(contract.openapi).toBe('3.1.0');
    expect(contract.security).toEqual([{ bearer: [] }, { apiKeyHeader: [] }]);
    expect(contract.paths['/v1/data/{id}/schema'].get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(contract.paths['/v1/connectors'].post).toMatchObject({
      'x-required-role': 'member',
      'x-required-entitlement': 'connectors',
      requestBody: {
        content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateConnectorRequest' } } },
      },
    });
    expect(contract.paths['/v1/runtime/manifest'].get).toBeDefined();
    expect(contract.paths['/auth/login'].post.security).toEqual([]);
  });

  it('requires a credential on every MCP route', async () => {
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['GET', '/mcp/sse'],
      ['POST', '/mcp/messages?sessionId=x'],
      ['GET', '/mcp/tools'],
    ]) {
      const anonymous = await t.request(method, path);
      expect([path, anonymous.status, anonymous.body?.error?.code]).toEqual([
        path,
        401,
        'authentication_required',
      ]);
      const fake = await t.request(method, path, { token: `dsk_live_${'Q'.repeat(43)}` });
      expect([path, fake.status, fake.body?.error?.code]).toEqual([path, 401, 'invalid_api_key']);
    }
  });

  it("refuses a foreign Origin with 403 and accepts the appliance's own", async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const headers = { origin: 'http://evil.example', accept: 'application/json, text/event-stream' };
    for (const [method, path, body] of [
      ['POST', '/mcp', init],
      ['GET', '/mcp/sse', undefined],
      ['GET', '/mcp/tools', undefined],
    ] as const) {
      const res = await t.request(method, path, { token: owner.apiKey, headers, body });
      expect([path, res.status, res.body?.error?.code]).toEqual([path, 403, 'origin_not_allowed']);
    }
    const port = new URL(t.baseUrl).port;
    for (const origin of [t.baseUrl, `http://localhost:${port}`]) {
      const res = await t.request('GET', '/mcp/tools', { token: owner.apiKey, headers: { origin } });
      expect(res.status).toBe(200);
    }
    const otherLocalPort = await t.request('GET', '/mcp/tools', {
      token: owner.apiKey,
      headers: { origin: `http://127.0.0.1:${Number(port) + 1}` },
    });
    expect(otherLocalPort.status).toBe(403);
    expectMatchesContract(otherLocalPort, 'GET /mcp/tools');
  });

  it('binds a Streamable HTTP session to the key that opened it', async () => {
    expect(sessionId).toEqual(expect.any(String));
    const body = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    const headers = {
      'mcp-session-id': sessionId ?? '',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    };
    const foreign = await t.request('POST', '/mcp', { token: secondKey, headers, body });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('forbidden');
    expectMatchesContract(foreign, 'POST /mcp');
    const own = await t.request('POST', '/mcp', { token: owner.apiKey, headers, body });
    expect(own.status).toBe(200);
    expect(own.body.result.tools).toHaveLength(COMMUNITY_TOOLS.length);
    expectMatchesContract(own, 'POST /mcp');
    const unknown = await t.request('POST', '/mcp', {
      token: owner.apiKey,
      headers: { ...headers, 'mcp-session-id': 'no-such-session' },
      body,
    });
    expect(unknown.status).toBe(404);
    expectMatchesContract(unknown, 'POST /mcp');
  });

  it('serves the same tools over the legacy HTTP+SSE transport, bound to its key', async () => {
    const { client: sse } = await connectSse(t.baseUrl, owner.apiKey);
    const raw = await openRawSse(t.baseUrl, owner.apiKey);
    try {
      expect((await sse.listTools()).tools.map((tool) => tool.name)).toEqual(COMMUNITY_TOOLS);
      const rows = structured(
        await sse.callTool({
          name: 'query_data',
          arguments: { dataset_id: datasetId, select: ['order_id'], limit: 2 },
        }),
      );
      expect(rows.rows).toEqual([{ order_id: 1 }, { order_id: 2 }]);
      const message = { jsonrpc: '2.0', id: 9, method: 'ping', params: {} };
      const path = `/mcp/messages?sessionId=${raw.sessionId}`;
      const foreign = await t.request('POST', path, { token: secondKey, body: message });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.code).toBe('forbidden');
      expectMatchesContract(foreign, 'POST /mcp');
      expect((await t.request('POST', path, { token: owner.apiKey, body: message })).status).toBe(202);
    } finally {
      raw.close();
      await sse.close();
    }
  });

  it('serves the tools over stdio (npm run -s mcp:stdio) against the daemon', async () => {
    const stdio = await connectStdio(t.baseUrl, owner.apiKey);
    try {
      expect((await stdio.listTools()).tools.map((tool) => tool.name)).toEqual(COMMUNITY_TOOLS);
      const summary = structured(
        await stdio.callTool({ name: 'get_data_summary', arguments: { dataset_id: datasetId } }),
      );
      expect(summary.rows).toBe(20);
      const missing = toolErrorOf(
        await stdio.callTool({ name: 'get_data_summary', arguments: { dataset_id: 'x' } }),
      );
      expect(missing.code).toBe('dataset_not_found');
    } finally {
      await stdio.close();
    }
  });
});
