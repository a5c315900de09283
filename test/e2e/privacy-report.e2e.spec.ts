import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { decisionHash } from '../../src/modules/egress/egress-decision.repository';
import { signedBytes, verifyReportText } from '../../src/modules/privacy/report-signature';
import { Receiver, startReceiver } from '../support/egress-fixtures';
import { createApiKey, signupAccount } from '../factories/accounts';
import { REPO_ROOT } from '../support/daemon-process';
import { HttpResult, makeTempDir, startTestApp, TestApp } from '../support/test-app';
import { queryAppStore } from '../support/test-store';
import { createTestDatabase, queryTestDatabase, sharedSecretsEnv, TestDatabase } from '../support/postgres';

describe('GET /v1/admin/privacy-report', () => {
  let t: TestApp;
  let receiver: Receiver;
  let operator: string;
  let outsider: string;
  let operatorMember: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestApp({ SERVICE_EGRESS_ALLOW: `127.0.0.1:${receiver.port}` });
    operator = (await signupAccount(t)).apiKey;
    outsider = (await signupAccount(t)).apiKey;
    operatorMember = (await createApiKey(t, operator, { role: 'member' })).rawKey;
    await t.request('POST', '/v1/webhooks/test', { token: operator, body: { callback_url: receiver.url } });
    await t.request('POST', '/v1/webhooks/test', {
      token: outsider,
      body: { callback_url: 'http://169.254.169.254/' },
    });
  });

  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('is only for admins of the operator organization', async () => {
    for (const path of [
      '/v1/admin/privacy-report',
      '/v1/admin/privacy-report/public-key',
      '/v1/admin/privacy-reports',
      '/v1/admin/privacy-reports/prr_000000000001',
    ]) {
      const res = await t.request('GET', path, { token: outsider });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      const member = await t.request('GET', path, { token: operatorMember });
      expect(member.status).toBe(403);
      expect(member.body.error.code).toBe('insufficient_role');
      expect((await t.request('GET', path)).status).toBe(401);
    }
  });

  it('summarises the last 24 hours of egress, signed, and verifies offline', async () => {
    const key = await t.request('GET', '/v1/admin/privacy-report/public-key', { token: operator });
    expect(key.status).toBe(200);
    expect(key.body.public_key_pem).toContain('BEGIN PUBLIC KEY');
    expect(key.body.kid).toMatch(/^[0-9a-f]{16}$/);

    const res = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(res.status).toBe(200);
    const report = res.body;
    expect(report.report_version).toBe(1);
    expect(report.appliance).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      build: 'development',
      source_commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      sbom_sha256: null,
    });
    expect(new Date(report.window.end).getTime() - new Date(report.window.start).getTime()).toBe(86_400_000);
    expect(report.telemetry).toEqual({ phone_home: false, update_check: false, crash_upload: false });
    expect(report.license).toEqual({ edition: expect.any(String), status: expect.any(String) });
    expect(report.policy).toEqual({
      mode: 'allowlist',
      rules: [`127.0.0.1:${receiver.port}`],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(report.egress_24h).toMatchObject({ attempts: 2, allowed: 1, denied: 1 });
    expect(report.egress_24h.destinations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          host: '127.0.0.1',
          port: receiver.port,
          purpose: 'webhook',
          allowed: 1,
          denied: 0,
          addresses: ['127.0.0.1'],
        }),
        expect.objectContaining({
          host: '169.254.169.254',
          port: 80,
          purpose: 'webhook',
          allowed: 0,
          denied: 1,
        }),
      ]),
    );
    expect(report.cloud_free).toBe(true);
    expect(report.cloud_free_findings).toEqual([]);
    expect(report.chain).toMatchObject({
      length: 2,
      verified: true,
      head_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(report.signature).toMatchObject({ alg: 'Ed25519', kid: key.body.kid });

    expect(verifyReportText(res.text, key.body.public_key_pem).ok).toBe(true);
    const tampered = res.text.replace('"denied":1', '"denied":0');
    expect(tampered).not.toBe(res.text);
    expect(verifyReportText(tampered, key.body.public_key_pem).ok).toBe(false);

    const dir = makeTempDir('ds-verify-');
    writeFileSync(join(dir, 'key.pem'), key.body.public_key_pem);
    writeFileSync(join(dir, 'report.json'), res.text);
    const cli = join(REPO_ROOT, 'dist', 'cli', 'verify-report.js');
    const out = execFileSync(process.execPath, [
      cli,
      '--public-key',
      join(dir, 'key.pem'),
      join(dir, 'report.json'),
    ]);
    expect(out.toString()).toMatch(/^OK/);
    const bytes = Buffer.from(res.text, 'utf8');
    const at = res.text.indexOf('"attempts":2') + '"attempts":'.length;
    bytes[at] = '3'.charCodeAt(0);
    writeFileSync(join(dir, 'report.json'), bytes);
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [cli, '--public-key', join(dir, 'key.pem'), join(dir, 'report.json')], {
        stdio: 'pipe',
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr).toMatch(/FAILED: the signature does not match/);
  });

  it('keeps every served report, each naming the hash of the one before it, listed newest first', async () => {
    const served: string[] = [];
    for (let i = 0; i < 2; i++) {
      served.push((await t.request('GET', '/v1/admin/privacy-report', { token: operator })).text);
    }
    const concurrent = await Promise.all(
      [1, 2, 3].map(() => t.request('GET', '/v1/admin/privacy-report', { token: operator })),
    );
    served.push(...concurrent.map((r) => r.text));

    const listed: {
      id: string;
      generated_at: string;
      sha256: string;
      previous_report_hash: string | null;
    }[] = [];
    let cursor: string | null = null;
    do {
      const page: HttpResult<any> = await t.request(
        'GET',
        `/v1/admin/privacy-reports?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        {
          token: operator,
        },
      );
      expect(page.status).toBe(200);
      expect(page.body.reports.length).toBeLessThanOrEqual(2);
      listed.push(...page.body.reports);
      cursor = page.body.next_cursor;
    } while (cursor !== null);

    expect(listed.length).toBeGreaterThanOrEqual(served.length);
    expect(listed[listed.length - 1].previous_report_hash).toBeNull();
    for (let i = 0; i + 1 < listed.length; i++) {
      expect(listed[i].previous_report_hash).toBe(listed[i + 1].sha256);
      expect(listed[i].generated_at >= listed[i + 1].generated_at).toBe(true);
    }
    for (const entry of listed) {
      const kept = await t.request('GET', `/v1/admin/privacy-reports/${entry.id}`, { token: operator });
      expect(kept.status).toBe(200);
      expect(kept.headers.get('content-type')).toMatch(/^application\/json/);
      const hash = createHash('sha256').update(signedBytes(kept.body)).digest('hex');
      expect(hash).toBe(entry.sha256);
      expect(kept.body).toMatchObject({
        report_id: entry.id,
        generated_at: entry.generated_at,
        previous_report_hash: entry.previous_report_hash,
      });
    }
    const keptTexts = await Promise.all(
      listed.map(
        async (e) => (await t.request('GET', `/v1/admin/privacy-reports/${e.id}`, { token: operator })).text,
      ),
    );
    for (const text of served) expect(keptTexts).toContain(text);
  });

  it('counts the window hour by hour for the timeline', async () => {
    const report = (await t.request('GET', '/v1/admin/privacy-report', { token: operator })).body;
    const hourly = report.egress_24h.hourly as { start: string; allowed: number; denied: number }[];
    expect(hourly).toHaveLength(24);
    expect(hourly[0].start).toBe(report.window.start);
    expect(Date.parse(hourly[1].start) - Date.parse(hourly[0].start)).toBe(3_600_000);
    expect(hourly.reduce((n, h) => n + h.allowed, 0)).toBe(report.egress_24h.allowed);
    expect(hourly.reduce((n, h) => n + h.denied, 0)).toBe(report.egress_24h.denied);
    expect(hourly[23]).toMatchObject({ allowed: 1, denied: 1 });
  });

  it('still serves a report after the clock stepped back behind the newest one, linked to it', async () => {
    const [newest] = await queryAppStore<{ sequence: number; sha256: string }>(
      t,
      'select sequence, sha256 from privacy_reports order by sequence desc limit 1',
    );
    // The newest report as if stamped by a clock an hour ahead of today's.
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    await queryAppStore(t, 'update privacy_reports set generated_at = ? where sequence = ?', [
      ahead,
      newest.sequence,
    ]);
    const served = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(served.status).toBe(200);
    const listed: HttpResult<any> = await t.request('GET', '/v1/admin/privacy-reports?limit=1', {
      token: operator,
    });
    expect(listed.body.reports[0].previous_report_hash).toBe(newest.sha256);
    expect(Date.parse(listed.body.reports[0].generated_at)).toBeLessThan(Date.parse(ahead));
  });

  it('names where it keeps its state, signed, on the store this suite runs on', async () => {
    const res = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    const onPostgres = t.config.databaseUrl !== undefined;
    expect(res.body.store).toEqual({
      kind: onPostgres ? 'postgresql' : 'sqlite',
      location: onPostgres
        ? expect.stringMatching(/^127\.0\.0\.1:5432\/ds_test_[0-9a-f]+$/)
        : t.config.databaseFile,
      judged_by_egress_policy: false,
      shared_by_replicas: onPostgres,
      datasets_dir: t.config.datasetsDir,
      keys_dir: t.config.keysDir,
      composed_on: hostname(),
    });
    const key = await t.request('GET', '/v1/admin/privacy-report/public-key', { token: operator });
    expect(verifyReportText(res.text, key.body.public_key_pem).ok).toBe(true);
    const moved = res.text.replace(JSON.stringify(res.body.store.location), '"elsewhere:5432/x"');
    expect(verifyReportText(moved, key.body.public_key_pem).ok).toBe(false);
    const html = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    expect(html.text).toContain(
      onPostgres ? 'PostgreSQL server <code>127.0.0.1:5432/ds_test_' : "SQLite, this appliance's file",
    );
  });

  it('counts the decisions of every node that recorded one, another replica and rows from before nodes included', async () => {
    const own = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(own.body.egress_24h.nodes).toEqual([{ node: hostname(), allowed: 1, denied: 1 }]);

    // Decisions as another replica on the shared store, and a row from before nodes were recorded, linked in.
    for (const node of ['replica-b.example', null]) {
      const [last] = await queryAppStore<{ seq: number; hash: string }>(
        t,
        'select seq, hash from egress_decisions order by seq desc limit 1',
      );
      const row = {
        seq: last.seq + 1,
        // A second ago: the report's window ends at its own "now", exclusive, which an in-process request can share
        // to the millisecond with a row written just before it.
        decidedAt: new Date(Date.now() - 1000).toISOString(),
        purpose: 'webhook',
        orgId: null,
        host: 'b.example',
        port: 443,
        address: null,
        allowed: false,
        reason: 'no_rule: no egress rule allows b.example:443',
      };
      await queryAppStore(
        t,
        'insert into egress_decisions (seq, decided_at, purpose, org_id, host, port, address, allowed, reason, prev_hash, hash, node) values (?, ?, ?, ?, ?, ?, ?, false, ?, ?, ?, ?)',
        [
          row.seq,
          row.decidedAt,
          row.purpose,
          null,
          row.host,
          row.port,
          null,
          row.reason,
          last.hash,
          decisionHash(last.hash, row),
          node,
        ],
      );
    }
    const res = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(res.body.chain.verified).toBe(true);
    expect(res.body.egress_24h.nodes).toEqual([
      ...[
        { node: hostname(), allowed: 1, denied: 1 },
        { node: 'replica-b.example', allowed: 0, denied: 1 },
      ].sort((a, b) => (a.node < b.node ? -1 : 1)),
      { node: null, allowed: 0, denied: 1 },
    ]);
    const html = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    expect(html.text).toContain('<li>replica-b.example: 0 allowed, 1 denied</li>');
    expect(html.text).toContain(`<li>${hostname()}: 1 allowed, 1 denied</li>`);
    expect(html.text).toContain(
      '<li>not recorded (decisions from before nodes were): 0 allowed, 1 denied</li>',
    );
  });

  it('answers 404 for an unknown report and 422 for a cursor it did not issue', async () => {
    for (const id of ['prr_999999999999', 'nope', '..%2f..%2fetc']) {
      const res = await t.request('GET', `/v1/admin/privacy-reports/${id}`, { token: operator });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const bad = await t.request('GET', '/v1/admin/privacy-reports?cursor=abc', { token: operator });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('invalid_cursor');
    expect(bad.body.error.details).toEqual([{ field: 'cursor', problem: expect.any(String) }]);
  });
});

describe('the privacy report of an appliance on PostgreSQL', () => {
  const role = `ds_report_owner_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  let database: TestDatabase;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    await queryTestDatabase(database.url, `create role ${role} login password '${password}'`);
    await queryTestDatabase(database.url, `alter database ${database.name} owner to ${role}`);
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    const dataDir = makeTempDir();
    t = await startTestApp(
      { ...sharedSecretsEnv(join(dataDir, 'keys')), SERVICE_DATABASE_URL: url.toString() },
      dataDir,
    );
  });

  afterAll(async () => {
    await t?.close();
    await database.drop();
    await queryTestDatabase(
      database.url.replace(`/${database.name}`, '/postgres'),
      `drop role if exists ${role}`,
    );
  });

  it('names its server and database, its shared directories, and never the user or password of the URL', async () => {
    const operator = (await signupAccount(t)).apiKey;
    const json = await t.request('GET', '/v1/admin/privacy-report', { token: operator });
    expect(json.body.store).toEqual({
      kind: 'postgresql',
      location: `127.0.0.1:5432/${database.name}`,
      judged_by_egress_policy: false,
      shared_by_replicas: true,
      datasets_dir: t.config.datasetsDir,
      keys_dir: t.config.keysDir,
      composed_on: hostname(),
    });
    const html = await t.request('GET', '/v1/admin/privacy-report?format=html', { token: operator });
    expect(html.text).toContain(
      `PostgreSQL server <code>127.0.0.1:5432/${database.name}</code>, shared by every replica`,
    );
    const kept = await t.request('GET', `/v1/admin/privacy-reports/${json.body.report_id}`, {
      token: operator,
    });
    const keptPage = await t.request('GET', `/v1/admin/privacy-reports/${json.body.report_id}?format=html`, {
      token: operator,
    });
    const list = await t.request('GET', '/v1/admin/privacy-reports', { token: operator });
    for (const format of [json.text, html.text, kept.text, keptPage.text, list.text]) {
      expect(format).not.toContain(role);
      expect(format).not.toContain(password);
      expect(format).not.toContain('postgres://');
    }
  });
});
