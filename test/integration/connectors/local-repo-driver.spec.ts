import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { LocalRepoConfig, localRepoDriver } from '../../../src/modules/connectors/drivers/local-repo';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { TestEgressGuard } from '../../support/test-egress-guard';

const author = { name: 'Test', email: 'test@example.test' };

/** A real git repository made with a git library: a CSV on main, changed on a later commit and a branch. */
async function makeRepo(dir: string): Promise<{ first: string }> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  await git.init({ fs, dir, defaultBranch: 'main' });
  writeFileSync(join(dir, 'data', 'sales.csv'), 'region,units\nnorth,1\nsouth,2\n');
  writeFileSync(join(dir, 'README.md'), '# sales\n');
  await git.add({ fs, dir, filepath: 'data/sales.csv' });
  await git.add({ fs, dir, filepath: 'README.md' });
  const first = await git.commit({ fs, dir, message: 'First sales', author });
  await git.tag({ fs, dir, ref: 'v1' });
  writeFileSync(join(dir, 'data', 'sales.csv'), 'region,units\nnorth,1\nsouth,2\neast,3\n');
  symlinkSync('/etc/passwd', join(dir, 'data', 'link.csv'));
  await git.add({ fs, dir, filepath: 'data/sales.csv' });
  await git.add({ fs, dir, filepath: 'data/link.csv' });
  await git.commit({ fs, dir, message: 'More sales', author });
  await git.branch({ fs, dir, ref: 'old', object: first });
  return { first };
}

describe('local_repo driver (git repositories in the import dir)', () => {
  const root = mkdtempSync(join(tmpdir(), 'local-repo-'));
  const importDir = join(root, 'import');
  const outside = join(root, 'outside');
  let first: string;
  const ctx: DriverContext = {
    orgId: 'org_1',
    egress: new TestEgressGuard([]),
    imports: importAreaFor(importDir, 'org_1', false, []),
    scratchDir: tmpdir(),
    batchSize: 2,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
  const config = (raw: Record<string, unknown>): LocalRepoConfig =>
    normalizeConfig({ type: 'local_repo' }, raw).values as LocalRepoConfig;
  const mine = (name: string): string => join('orgs', 'org_1', name);

  async function readAll(cfg: LocalRepoConfig, selection: RowSelection): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of localRepoDriver.readRows(cfg, selection, ctx)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    mkdirSync(join(importDir, 'orgs', 'org_1'), { recursive: true });
    ({ first } = await makeRepo(join(importDir, 'orgs', 'org_1', 'sales-repo')));
    await makeRepo(outside);
    symlinkSync(outside, join(importDir, 'orgs', 'org_1', 'escape'));
    mkdirSync(join(importDir, 'orgs', 'org_2'), { recursive: true });
    await makeRepo(join(importDir, 'orgs', 'org_2', 'theirs'));
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('tests by reading the ref, naming its commit and the branches', async () => {
    const outcome = await localRepoDriver.test(config({ path: mine('sales-repo') }), ctx);
    expect(outcome.message).toMatch(/^Read HEAD at commit [0-9a-f]{12} \("More sales"\); 2 branch\(es\)\.$/);
    expect(outcome.details?.branches).toEqual(['main', 'old']);
  });

  it('browses the tree at a ref, marking data files', async () => {
    const result = await localRepoDriver.browse(config({ path: mine('sales-repo'), ref: 'v1' }), ctx);
    expect(result.items).toEqual([
      { name: 'README.md', kind: 'file' },
      { name: 'data/sales.csv', kind: 'file', type: 'csv' },
    ]);
  });

  it('onboards a data file at HEAD, at a branch, a tag and an abbreviated commit', async () => {
    const repo = config({ path: mine('sales-repo') });
    expect(await readAll(repo, { path: 'data/sales.csv' })).toHaveLength(3);
    expect(await readAll(repo, { path: 'data/sales.csv', ref: 'old' })).toEqual([
      { region: 'north', units: '1' },
      { region: 'south', units: '2' },
    ]);
    expect(await readAll(repo, { path: 'data/sales.csv', ref: 'v1' })).toHaveLength(2);
    expect(await readAll(repo, { path: 'data/sales.csv', ref: first.slice(0, 8) })).toHaveLength(2);
  });

  it('refuses a repository outside the organization, or reached through a symlink leading out', async () => {
    for (const path of [mine('escape'), join('orgs', 'org_2', 'theirs'), outside, '../outside']) {
      const failure = await connectorFailure(localRepoDriver.test(config({ path }), ctx));
      expect(failure.errorType).toBe('path_not_allowed');
    }
  });

  it('refuses paths with "..", and symlink entries of the repository, reading nothing', async () => {
    const repo = config({ path: mine('sales-repo') });
    for (const path of ['../outside/data/sales.csv', '/etc/passwd', 'data/link.csv']) {
      const failure = await connectorFailure(readAll(repo, { path }));
      expect(failure.errorType).toBe('path_not_allowed');
    }
  });

  it('answers not_found for a missing file or ref, and needs a data file name', async () => {
    const repo = config({ path: mine('sales-repo') });
    expect((await connectorFailure(readAll(repo, { path: 'data/none.csv' }))).errorType).toBe('not_found');
    expect((await connectorFailure(readAll(repo, { path: 'data/sales.csv', ref: 'nope' }))).errorType).toBe(
      'not_found',
    );
    expect((await connectorFailure(readAll(repo, { path: 'README.md' }))).errorType).toBe('invalid_config');
  });
});
