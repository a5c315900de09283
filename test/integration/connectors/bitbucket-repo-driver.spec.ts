import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import {
  BitbucketRepoConfig,
  bitbucketRepoDriver,
} from '../../../src/modules/connectors/drivers/bitbucket-repo';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { connectorFailure } from '../../support/connector-failure';
import { BitbucketStandIn, startBitbucketStandIn } from '../../support/bitbucket-stand-in';
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

/** More files than one listing page (100) holds, so browse follows `next`. */
const NOTES = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`notes/n${i}.md`, 'x']));

describe('bitbucket_repo driver (loopback stand-in)', () => {
  let bb: BitbucketStandIn;
  let allowed: DriverContext;
  const config = (extra: Record<string, unknown> = {}): BitbucketRepoConfig =>
    normalizeConfig(
      { type: 'bitbucket_repo' },
      { workspace: 'acme', repo: 'data', token: 'bb-good', base_url: bb.url, ...extra },
    ).values as BitbucketRepoConfig;

  async function readAll(selection: RowSelection): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of bitbucketRepoDriver.readRows(config(), selection, allowed)) out.push(...batch);
    return out;
  }

  beforeAll(async () => {
    bb = await startBitbucketStandIn({
      main: { 'data/sales.csv': 'region,units\nnorth,1\n', ...NOTES },
      v1: { 'data/sales.csv': 'region,units\nold,9\n' },
    });
    allowed = context([`127.0.0.1:${bb.port}`]);
  });

  afterAll(async () => {
    await bb.close();
  });

  it('defaults base_url to Bitbucket Cloud and refuses slugs with slashes', () => {
    expect(normalizeConfig({ type: 'bitbucket_repo' }, { workspace: 'a', repo: 'b' }).values).toEqual({
      workspace: 'a',
      repo: 'b',
      base_url: 'https://api.bitbucket.org/2.0',
    });
    expect(() => normalizeConfig({ type: 'bitbucket_repo' }, { workspace: 'a/b', repo: 'c' })).toThrow();
  });

  it('tests with the repository metadata and answers auth_failed for a wrong token', async () => {
    const outcome = await bitbucketRepoDriver.test(config(), allowed);
    expect(outcome.message).toBe('Read private repository acme/data (main branch main).');
    const error = await connectorFailure(bitbucketRepoDriver.test(config({ token: 'bb-bad' }), allowed));
    expect(error.errorType).toBe('auth_failed');
    expect(error.message).not.toContain('bb-bad');
  });

  it('browses every page of the listing', async () => {
    const result = await bitbucketRepoDriver.browse(config(), allowed);
    expect(result.items).toHaveLength(151);
    expect(result.items).toContainEqual({ name: 'data/sales.csv', kind: 'file', type: 'csv', size: 21 });
  });

  it('does not follow a next link to another server', async () => {
    const foreign = await startBitbucketStandIn(
      { main: { 'a.csv': 'x\n1\n' } },
      { foreignNext: 'http://evil.test/x' },
    );
    const ctx = context([`127.0.0.1:${foreign.port}`]);
    const error = await connectorFailure(bitbucketRepoDriver.browse(config({ base_url: foreign.url }), ctx));
    expect(error.errorType).toBe('remote_error');
    expect((ctx.egress as TestEgressGuard).attempts.every((a) => a.host === '127.0.0.1')).toBe(true);
    await foreign.close();
  });

  it('onboards a CSV file at the main branch and at a given ref', async () => {
    expect(await readAll({ path: 'data/sales.csv' })).toEqual([{ region: 'north', units: '1' }]);
    expect(await readAll({ path: 'data/sales.csv', ref: 'v1' })).toEqual([{ region: 'old', units: '9' }]);
  });

  it('answers not_found for a missing file and egress_blocked without a rule', async () => {
    expect((await connectorFailure(readAll({ path: 'none.csv' }))).errorType).toBe('not_found');
    const blocked = await connectorFailure(bitbucketRepoDriver.test(config(), context([])));
    expect(blocked.errorType).toBe('egress_blocked');
  });
});
