import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey, signupAccount, TestAccount } from '../factories/accounts';
import { connectStreamable } from '../support/mcp-clients';
import { startTestApp, TestApp } from '../support/test-app';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1.0.0' } },
};

describe('MCP session limits per credential and organization', () => {
  let t: TestApp;
  let owner: TestAccount;
  const open: { client: Client; transport: StreamableHTTPClientTransport }[] = [];

  beforeAll(async () => {
    t = await startTestApp({ SERVICE_MCP_MAX_SESSIONS_PER_KEY: '2', SERVICE_MCP_MAX_SESSIONS_PER_ORG: '3' });
    owner = await signupAccount(t);
  });
  afterAll(async () => {
    await Promise.allSettled(open.map((s) => s.client.close()));
    await t.close();
  });

  async function connect(key: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const session = await connectStreamable(t.baseUrl, key);
    open.push(session);
    return session;
  }

  const initialize = (key: string) =>
    t.request('POST', '/mcp', {
      token: key,
      body: INITIALIZE,
      headers: { accept: 'application/json, text/event-stream' },
    });

  it('refuses a third session of one viewer key with 503 and Retry-After, and frees the slot on close', async () => {
    const viewer = (await createApiKey(t, owner.apiKey, { role: 'viewer' })).rawKey;
    const first = await connect(viewer);
    await connect(viewer);

    const refused = await initialize(viewer);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('mcp_session_limit_reached');
    expect(refused.body.error.message).toContain('All 2 MCP sessions this credential has');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(500);
    expect(retryAfter).toBeLessThanOrEqual(600);

    await first.transport.terminateSession();
    const again = await connect(viewer);
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('caps the organization across its keys, and leaves other organizations alone', async () => {
    const another = (await createApiKey(t, owner.apiKey, { role: 'viewer' })).rawKey;
    await connect(another);

    const refused = await initialize(owner.apiKey);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('mcp_session_limit_reached');
    expect(refused.body.error.message).toContain('All 3 MCP sessions your organization has');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const stranger = await signupAccount(t);
    const theirs = await connect(stranger.apiKey);
    expect((await theirs.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('MCP sessions kept for the operator organization', () => {
  let t: TestApp;
  const open: { client: Client }[] = [];
  beforeAll(async () => {
    t = await startTestApp({ SERVICE_MCP_MAX_SESSIONS: '3', SERVICE_MCP_OPERATOR_RESERVE: '1' });
  });
  afterAll(async () => {
    await Promise.allSettled(open.map((s) => s.client.close()));
    await t.close();
  });

  it('refuses tenants the reserved slot and still lets the operator organization open a session', async () => {
    const operator = await signupAccount(t);
    const tenants = [await signupAccount(t), await signupAccount(t)];
    for (const tenant of tenants) open.push(await connectStreamable(t.baseUrl, tenant.apiKey));

    const refused = await t.request('POST', '/mcp', {
      token: tenants[0].apiKey,
      body: INITIALIZE,
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('mcp_session_limit_reached');
    expect(refused.body.error.message).toContain(
      'All 2 MCP sessions the appliance keeps for tenant organizations',
    );

    const operatorSession = await connectStreamable(t.baseUrl, operator.apiKey);
    open.push(operatorSession);
    expect((await operatorSession.client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
