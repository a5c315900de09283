import { tmpdir } from 'node:os';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import {
  BitbucketRepoConfig,
  bitbucketRepoDriver,
  isBitbucketCloud,
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
      { workspace: 'acme', repo: 'data', token: 'bb-good', base_url: bb.cloudUrl, ...extra },
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
    const error = await connectorFailure(
      bitbucketRepoDriver.browse(config({ base_url: foreign.cloudUrl }), ctx),
    );
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

  describe('Bitbucket Data Center / Server (base_url other than the Cloud API)', () => {
    const dc = (extra: Record<string, unknown> = {}): BitbucketRepoConfig =>
      normalizeConfig(
        { type: 'bitbucket_repo' },
        { workspace: 'ACME', repo: 'data', token: 'bb-good', base_url: bb.url, ...extra },
      ).values as BitbucketRepoConfig;

    async function readDc(selection: RowSelection): Promise<Record<string, unknown>[]> {
      const out: Record<string, unknown>[] = [];
      for await (const batch of bitbucketRepoDriver.readRows(dc(), selection, allowed)) out.push(...batch);
      return out;
    }

    it('tells the editions apart by base_url and accepts a personal project key', () => {
      expect(isBitbucketCloud('https://api.bitbucket.org/2.0')).toBe(true);
      expect(isBitbucketCloud('https://api.bitbucket.org')).toBe(true);
      expect(isBitbucketCloud('http://127.0.0.1:7990/2.0/')).toBe(true);
      expect(isBitbucketCloud('https://bitbucket.example.com')).toBe(false);
      expect(isBitbucketCloud('https://example.com/bitbucket')).toBe(false);
      expect(dc({ workspace: '~jdoe' }).workspace).toBe('~jdoe');
      expect(() => normalizeConfig({ type: 'bitbucket_repo' }, { workspace: '~jdoe', repo: 'x' })).toThrow();
    });

    it('tests with /rest/api/1.0 metadata and the default branch, Bearer token', async () => {
      const outcome = await bitbucketRepoDriver.test(dc(), allowed);
      expect(outcome.message).toBe(
        'Read private Bitbucket Data Center repository ACME/data (default branch main).',
      );
      expect(outcome.details).toMatchObject({
        full_name: 'ACME/data',
        main_branch: 'main',
        edition: 'data_center',
      });
      expect(bb.requests).toContain('/rest/api/1.0/projects/ACME/repos/data/default-branch');
      const error = await connectorFailure(bitbucketRepoDriver.test(dc({ token: 'bb-bad' }), allowed));
      expect(error.errorType).toBe('auth_failed');
      expect(error.message).not.toContain('bb-bad');
      const missing = await connectorFailure(bitbucketRepoDriver.test(dc({ repo: 'nope' }), allowed));
      expect(missing.errorType).toBe('not_found');
    });

    it('falls back to branches/default on servers without default-branch', async () => {
      const legacy = await startBitbucketStandIn(
        { main: { 'a.csv': 'x\n1\n' } },
        { legacyDefaultBranch: true },
      );
      const ctx = context([`127.0.0.1:${legacy.port}`]);
      const outcome = await bitbucketRepoDriver.test(dc({ base_url: legacy.url }), ctx);
      expect(outcome.details).toMatchObject({ main_branch: 'main' });
      expect(legacy.requests.some((r) => r.endsWith('/branches/default'))).toBe(true);
      await legacy.close();
    });

    it('browses every folder and every page (isLastPage / nextPageStart)', async () => {
      const before = bb.requests.length;
      const result = await bitbucketRepoDriver.browse(dc(), allowed);
      expect(result.items).toHaveLength(151);
      expect(result.items).toContainEqual({ name: 'data/sales.csv', kind: 'file', type: 'csv', size: 21 });
      expect(result.items).toContainEqual({ name: 'notes/n149.md', kind: 'file', size: 1 });
      expect(result.discovery).toEqual({ ref: 'main', complete: true });
      const browses = bb.requests.slice(before).filter((r) => r.includes('/browse'));
      expect(browses.some((r) => r.includes('/browse/notes?') && r.includes('start=100'))).toBe(true);
    });

    it('onboards a CSV file through /raw at the default branch and at a given ref', async () => {
      expect(await readDc({ path: 'data/sales.csv' })).toEqual([{ region: 'north', units: '1' }]);
      expect(await readDc({ path: 'data/sales.csv', ref: 'v1' })).toEqual([{ region: 'old', units: '9' }]);
      expect((await connectorFailure(readDc({ path: 'none.csv' }))).errorType).toBe('not_found');
    });

    it('answers egress_blocked without a rule, contacting nothing', async () => {
      const ctx = context([]);
      const blocked = await connectorFailure(bitbucketRepoDriver.browse(dc(), ctx));
      expect(blocked.errorType).toBe('egress_blocked');
    });
  });
});
