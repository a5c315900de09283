import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { GitlabRepoConfig, gitlabRepoDriver } from '../../../src/modules/connectors/drivers/gitlab-repo';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { GitlabStandIn, startGitlabStandIn } from '../../support/gitlab-stand-in';
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

/** More files than one tree page (100) holds, so browse has to page. */
const NOTES = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`notes/n${i}.md`, 'x']));

describe('gitlab_repo driver (loopback stand-in)', () => {
  let gl: GitlabStandIn;
  let allowed: DriverContext;
  const config = (extra: Record<string, unknown> = {}): GitlabRepoConfig =>
    normalizeConfig(
      { type: 'gitlab_repo' },
      { project: 'acme/data', token: 'glpat-good', base_url: gl.url, ...extra },
    ).values as GitlabRepoConfig;

  async function readAll(selection: RowSelection): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of gitlabRepoDriver.readRows(config(), selection, allowed)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    gl = await startGitlabStandIn({
      main: { 'data/sales.json': JSON.stringify([{ region: 'north', units: 1 }]), ...NOTES },
      v1: { 'data/sales.json': JSON.stringify([{ region: 'old', units: 9 }]) },
    });
    allowed = context([`127.0.0.1:${gl.port}`]);
  });

  afterAll(async () => {
    await gl.close();
  });

  it('defaults base_url to gitlab.com and refuses a project that is neither a path nor an id', () => {
    expect(normalizeConfig({ type: 'gitlab_repo' }, { project: '42' }).values).toEqual({
      project: '42',
      base_url: 'https://gitlab.com/api/v4',
    });
    expect(() => normalizeConfig({ type: 'gitlab_repo' }, { project: 'acme/../x' })).toThrow();
    expect(() => normalizeConfig({ type: 'gitlab_repo' }, { project: 'just-a-name' })).toThrow();
  });

  it('tests with the project metadata, the token in PRIVATE-TOKEN', async () => {
    const outcome = await gitlabRepoDriver.test(config(), allowed);
    expect(outcome.message).toBe('Read private project acme/data (default branch main).');
    const error = await connectorFailure(gitlabRepoDriver.test(config({ token: 'glpat-bad' }), allowed));
    expect(error.errorType).toBe('auth_failed');
    expect(error.message).not.toContain('glpat-bad');
  });

  it('browses every page of the recursive tree', async () => {
    const result = await gitlabRepoDriver.browse(config(), allowed);
    expect(result.items).toHaveLength(151);
    expect(result.items).toContainEqual({ name: 'data/sales.json', kind: 'file', type: 'json' });
    expect(result.discovery).toEqual({ ref: 'main', complete: true });
  });

  it('onboards a JSON file at the default branch and at a given ref', async () => {
    expect(await readAll({ path: 'data/sales.json' })).toEqual([{ region: 'north', units: 1 }]);
    expect(await readAll({ path: 'data/sales.json', ref: 'v1' })).toEqual([{ region: 'old', units: 9 }]);
    expect(gl.requests).toContain('/projects/acme%2Fdata/repository/files/data%2Fsales.json/raw?ref=v1');
  });

  it('answers not_found for a missing file and path_not_allowed for an absolute path', async () => {
    expect((await connectorFailure(readAll({ path: 'data/none.csv' }))).errorType).toBe('not_found');
    expect((await connectorFailure(readAll({ path: '/etc/x.csv' }))).errorType).toBe('path_not_allowed');
  });

  it('answers egress_blocked without a rule', async () => {
    const blocked = await connectorFailure(gitlabRepoDriver.test(config(), context([])));
    expect(blocked.errorType).toBe('egress_blocked');
  });
});
