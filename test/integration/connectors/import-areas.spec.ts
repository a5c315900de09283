import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectorError } from '../../../src/modules/connectors/connector-error';
import {
  confinedFile,
  ImportArea,
  importAreaFor,
  ImportGrant,
} from '../../../src/modules/connectors/local-path';

let base: string;
let importDir: string;
let outside: string;

const GRANTS: ImportGrant[] = [
  { orgId: 'org_b', path: 'shared/rates.csv' },
  { orgId: 'org_b', path: 'reports' },
  { orgId: 'org_b', path: 'escape' },
];

function put(path: string, text = 'a\n1\n'): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'import-areas-'));
  importDir = join(base, 'imports');
  outside = join(base, 'outside');
  put(join(importDir, 'payroll.csv'), 'name,salary\nAda,1\n');
  put(join(importDir, 'orgs', 'org_a', 'uploads', 'abc_sales.csv'));
  put(join(importDir, 'orgs', 'org_b', 'uploads', 'def_mine.csv'));
  put(join(importDir, 'uploads', 'org_b', 'legacy.csv'));
  put(join(importDir, 'shared', 'rates.csv'));
  put(join(importDir, 'shared', 'other.csv'));
  put(join(importDir, 'reports', 'q1', 'sales.csv'));
  put(join(outside, 'secret.csv'));
  symlinkSync(
    join(importDir, 'orgs', 'org_a', 'uploads', 'abc_sales.csv'),
    join(importDir, 'orgs', 'org_b', 'a.csv'),
  );
  symlinkSync(join(outside, 'secret.csv'), join(importDir, 'orgs', 'org_b', 'out.csv'));
  symlinkSync(join(outside, 'secret.csv'), join(importDir, 'root-out.csv'));
  symlinkSync(outside, join(importDir, 'escape'));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const area = (orgId: string, isOperator = false): ImportArea =>
  importAreaFor(importDir, orgId, isOperator, GRANTS);

async function refusal(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

describe('the import directory per organization', () => {
  it("refuses another organization's upload and the operator's files exactly like an absent file", async () => {
    const absent = await refusal(confinedFile(area('org_b'), 'orgs/org_b/uploads/nothing.csv'));
    expect(absent.errorType).toBe('path_not_allowed');
    for (const path of [
      'orgs/org_a/uploads/abc_sales.csv',
      join(importDir, 'orgs', 'org_a', 'uploads', 'abc_sales.csv'),
      'orgs/org_b/../org_a/uploads/abc_sales.csv',
      'payroll.csv',
      'orgs/org_a/uploads/nothing.csv',
      'orgs/org_a',
      '/etc/passwd',
    ]) {
      const error = await refusal(confinedFile(area('org_b'), path));
      expect([path, error.errorType, error.message]).toEqual([path, 'path_not_allowed', absent.message]);
    }
    expect(absent.message).not.toMatch(/org_a|org_b|payroll|imports/);
  });

  it('reads its own folder, its legacy upload folder and what SERVICE_IMPORT_GRANTS names', async () => {
    for (const path of [
      'orgs/org_b/uploads/def_mine.csv',
      'uploads/org_b/legacy.csv',
      'shared/rates.csv',
      'reports/q1/sales.csv',
    ]) {
      expect(await confinedFile(area('org_b'), path)).toBe(join(importDir, path));
    }
    expect((await refusal(confinedFile(area('org_b'), 'shared/other.csv'))).errorType).toBe(
      'path_not_allowed',
    );
    expect((await refusal(confinedFile(area('org_c'), 'shared/rates.csv'))).errorType).toBe(
      'path_not_allowed',
    );
    expect((await refusal(confinedFile(area('org_c'), 'uploads/org_b/legacy.csv'))).errorType).toBe(
      'path_not_allowed',
    );
  });

  it('the operator organization reads the whole import directory', async () => {
    expect(await confinedFile(area('org_op', true), 'payroll.csv')).toBe(join(importDir, 'payroll.csv'));
    expect(await confinedFile(area('org_op', true), 'orgs/org_a/uploads/abc_sales.csv')).toBe(
      join(importDir, 'orgs/org_a/uploads/abc_sales.csv'),
    );
    expect((await refusal(confinedFile(area('org_op', true), '../outside/secret.csv'))).errorType).toBe(
      'path_not_allowed',
    );
  });

  it('refuses symlinks leading out of the allowed tree', async () => {
    for (const path of ['orgs/org_b/a.csv', 'orgs/org_b/out.csv', 'escape/secret.csv']) {
      expect((await refusal(confinedFile(area('org_b'), path))).errorType).toBe('path_not_allowed');
    }
    for (const path of ['root-out.csv', 'escape/secret.csv']) {
      expect((await refusal(confinedFile(area('org_op', true), path))).errorType).toBe('path_not_allowed');
    }
  });
});
