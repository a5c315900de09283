import { readFileSync } from 'node:fs';
import { createApiKey, login, signupAccount, TestAccount } from '../factories/accounts';
import { writeTestLicense } from '../support/licenses';
import { connectStreamable, structured } from '../support/mcp-clients';
import { makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { CONTRACT_FILE } from '../../src/modules/contract/contract-file';

const committed = readFileSync(CONTRACT_FILE, 'utf8');

describe('GET /v1/openapi.json serves the committed contract', () => {
  let community: TestApp;
  let licensed: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    community = await startTestApp();
    const dataDir = makeTempDir();
    licensed = await startTestApp(
      {
        ...writeTestLicense(dataDir),
        SERVICE_RUNTIME_LIBRARY_HTTP_API_ENABLED: '1',
        SERVICE_SIGNUP_ENABLED: 'true',
      },
      dataDir,
    );
    owner = await signupAccount(community);
  });
  afterAll(async () => {
    await community.close();
    await licensed.close();
  });

  it('refuses an anonymous caller', async () => {
    const res = await community.request('GET', '/v1/openapi.json');
    expect([res.status, res.body.error.code]).toEqual([401, 'authentication_required']);
  });

  it('answers every caller, of any role, edition and setting, with the same bytes', async () => {
    const viewer = await createApiKey(community, owner.apiKey, { role: 'viewer' });
    const session = await login(community, owner.email, owner.password);
    const licensedOwner = await signupAccount(licensed);
    const answers = [
      await community.request('GET', '/v1/openapi.json', { token: owner.apiKey }),
      await community.request('GET', '/v1/openapi.json', { token: viewer.rawKey }),
      await community.request('GET', '/v1/openapi.json', { token: session }),
      await community.request('GET', '/v1/openapi.json', { headers: { 'x-api-key': owner.apiKey } }),
      await licensed.request('GET', '/v1/openapi.json', { token: licensedOwner.apiKey }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.text).toBe(committed);
    }
  });

  it('documents routes the edition or a setting turns off, with the error they answer', () => {
    const document = JSON.parse(committed);
    const batch = document.paths['/v1/query/batch'].post;
    expect(batch['x-required-entitlement']).toBe('datasets');
    expect(
      batch.responses['403'].content['application/json'].schema.properties.error.properties.code.enum,
    ).toContain('not_entitled');
    const health = document.paths['/v1/libraries/health'].get;
    expect(
      health.responses['404'].content['application/json'].schema.properties.error.properties.code.enum,
    ).toContain('not_found');
  });

  it('is what the MCP tool get_contract returns', async () => {
    const { client } = await connectStreamable(community.baseUrl, owner.apiKey);
    try {
      const contract = structured(await client.callTool({ name: 'get_contract', arguments: {} }));
      expect(contract).toEqual(JSON.parse(committed));
    } finally {
      await client.close();
    }
  });
});
