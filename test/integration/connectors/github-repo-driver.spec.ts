import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { GithubRepoConfig, githubRepoDriver } from '../../../src/modules/connectors/drivers/github-repo';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { GithubStandIn, startGithubStandIn } from '../../support/github-stand-in';
import { TestEgressGuard } from '../../support/test-egress-guard';

function context(rules: string[]): DriverContext {
  return {
    orgId: 'org_1',
    egress: new TestEgressGuard(rules),
    imports: importAreaFor('/nonexistent', 'org_1', true, []),
    scratchDir: tmpdir(),
    batchSize: 100,
    parseLimits: parseLimits(),
    warn: () => undefined,
  };
}

describe('github_repo driver (loopback stand-in)', () => {
  let gh: GithubStandIn;
  let allowed: DriverContext;
  const config = (extra: Record<string, unknown> = {}): GithubRepoConfig =>
    normalizeConfig(
      { type: 'github_repo' },
      { owner: 'acme', repo: 'data', token: 'ghp_good', base_url: gh.url, ...extra },
    ).values as GithubRepoConfig;

  async function readAll(selection: RowSelection, settings = config()): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of githubRepoDriver.readRows(settings, selection, allowed)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    gh = await startGithubStandIn({
      main: { 'data/sales.csv': 'region,units\nnorth,1\nsouth,2\n', 'README.md': '# data\n' },
      v1: { 'data/sales.csv': 'region,units\nold,9\n' },
    });
    allowed = context([`127.0.0.1:${gh.port}`]);
  });

  afterAll(async () => {
    await gh.close();
  });

  it('defaults base_url to api.github.com and refuses names that are not GitHub names', () => {
    expect(normalizeConfig({ type: 'github_repo' }, { owner: 'a', repo: 'b' }).values).toEqual({
      owner: 'a',
      repo: 'b',
      base_url: 'https://api.github.com',
    });
    expect(() => normalizeConfig({ type: 'github_repo' }, { owner: 'a/../x', repo: 'b' })).toThrow();
    expect(() => normalizeConfig({ type: 'github_repo' }, { repo: 'b' })).toThrow();
  });

  it('tests with the repository metadata', async () => {
    const outcome = await githubRepoDriver.test(config(), allowed);
    expect(outcome.message).toBe('Read private repository acme/data (default branch main).');
  });

  it('answers auth_failed for a wrong token, without the token in the message', async () => {
    const error = await connectorFailure(githubRepoDriver.test(config({ token: 'ghp_wrong' }), allowed));
    expect(error.errorType).toBe('auth_failed');
    expect(error.message).not.toContain('ghp_wrong');
  });

  it('browses the files of the default branch, data files typed', async () => {
    const result = await githubRepoDriver.browse(config(), allowed);
    expect(result.items).toEqual([
      { name: 'data/sales.csv', kind: 'file', type: 'csv', size: 29 },
      { name: 'README.md', kind: 'file', size: 7 },
    ]);
  });

  it('onboards a CSV file at the default branch and at a given ref', async () => {
    expect(await readAll({ path: 'data/sales.csv' })).toEqual([
      { region: 'north', units: '1' },
      { region: 'south', units: '2' },
    ]);
    expect(await readAll({ path: 'data/sales.csv', ref: 'v1' })).toEqual([{ region: 'old', units: '9' }]);
    expect(gh.requests).toContain('/repos/acme/data/contents/data/sales.csv?ref=v1');
  });

  it('answers not_found for a missing file, path_not_allowed for "..", invalid_config for a non-data file', async () => {
    expect((await connectorFailure(readAll({ path: 'data/none.csv' }))).errorType).toBe('not_found');
    expect((await connectorFailure(readAll({ path: '../x.csv' }))).errorType).toBe('path_not_allowed');
    expect((await connectorFailure(readAll({ path: 'README.md' }))).errorType).toBe('invalid_config');
  });

  it('answers unreachable when nothing listens, and egress_blocked without a rule', async () => {
    const closed = await startGithubStandIn({});
    const port = closed.port;
    await closed.close();
    const down = await connectorFailure(
      githubRepoDriver.test(config({ base_url: `http://127.0.0.1:${port}` }), context([`127.0.0.1:${port}`])),
    );
    expect(down.errorType).toBe('unreachable');
    const blocked = await connectorFailure(githubRepoDriver.test(config(), context([])));
    expect(blocked.errorType).toBe('egress_blocked');
  });
});
