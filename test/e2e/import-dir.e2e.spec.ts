import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';

async function signUp(t: TestApp, email: string): Promise<string> {
  const response = await t.request('POST', '/auth/signup', {
    body: { email, password: 'correct horse battery staple', name: 'Person', organization_name: email },
  });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return response.body.api_key.raw_key as string;
}

describe('the import directory is per organization (booted daemon)', () => {
  let t: TestApp;
  let operator: string;
  let member: string;

  beforeAll(async () => {
    t = await startTestApp();
    operator = await signUp(t, 'operator@imports.test');
    member = await signUp(t, 'member@imports.test');
    mkdirSync(t.config.importDir, { recursive: true });
    writeFileSync(join(t.config.importDir, 'payroll.csv'), 'name,salary\nAda,100\nAlan,90\n');
  });

  afterAll(async () => {
    await t.close();
  });

  async function upload(token: string, name: string, body: string): Promise<string> {
    const response = await t.request('POST', '/v1/connectors/uploads', {
      token,
      rawBody: Buffer.from(body),
      headers: { 'content-type': 'application/octet-stream', 'x-filename': name },
    });
    expect(response.status).toBe(201);
    return response.body.file_path as string;
  }

  const testFile = (token: string, filePath: string) =>
    t.request('POST', '/v1/connectors/test', {
      token,
      body: { connector_type: 'file', config: { file_path: filePath } },
    });

  async function orgId(token: string): Promise<string> {
    return (await t.request('GET', '/v1/me', { token })).body.organization.id as string;
  }

  it("an organization cannot read another's upload or the operator's files; absent looks the same", async () => {
    const theirs = await upload(operator, 'sales.csv', 'region,total\nnorth,1\n');
    expect(theirs).toBe(`orgs/${await orgId(operator)}/uploads/${theirs.split('/').pop() ?? ''}`);

    const absent = await testFile(member, `orgs/${await orgId(member)}/uploads/nothing.csv`);
    expect(absent.body).toMatchObject({ success: false, error_type: 'path_not_allowed' });
    for (const path of [
      theirs,
      join(t.config.importDir, theirs),
      'payroll.csv',
      `orgs/${await orgId(operator)}`,
    ]) {
      const refused = await testFile(member, path);
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({
        success: false,
        error_type: 'path_not_allowed',
        message: absent.body.message,
      });
      expect(refused.text).not.toContain(await orgId(operator));
    }

    const connector = await t.request('POST', '/v1/connectors', {
      token: member,
      body: { name: 'stolen', connector_type: 'file', config: { file_path: 'payroll.csv' } },
    });
    const dataset = await t.request('POST', '/v1/data/connect', {
      token: member,
      body: { connection_type: 'file', dataset_name: 'stolen', connection_id: connector.body.id },
    });
    expect(dataset.body).toMatchObject({ status: 'failed', message: absent.body.message });
    expect(dataset.text).not.toContain('Ada');
  });

  it('each organization reads its own uploads; the operator reads the whole import directory', async () => {
    const mine = await upload(member, 'mine.csv', 'a,b\n1,2\n');
    expect(mine).toMatch(new RegExp(`^orgs/${await orgId(member)}/uploads/[0-9a-f]{32}_mine\\.csv$`));
    expect((await testFile(member, mine)).body).toMatchObject({
      success: true,
      message: `Parsed 1 record(s) from ${mine}.`,
    });
    expect((await testFile(operator, 'payroll.csv')).body).toMatchObject({ success: true });
    expect((await testFile(operator, mine)).body).toMatchObject({ success: true });
  });
});
