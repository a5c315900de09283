import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DriverContext, RowSelection } from '../../../src/modules/connectors/connector-driver';
import { normalizeConfig } from '../../../src/modules/connectors/connector-types';
import { RepoArchiveConfig, repoArchiveDriver } from '../../../src/modules/connectors/drivers/repo-archive';
import { importAreaFor } from '../../../src/modules/connectors/local-path';
import { parseLimits } from '../../factories/parse-limits';
import { tarArchive, TarMember, tarGzArchive, zipArchive, ZipMember } from '../../support/archives';
import { connectorFailure } from '../../support/connector-failure';
import { TestEgressGuard } from '../../support/test-egress-guard';

const SALES = 'region,units\nnorth,1\nsouth,2\n';
const GOOD_TAR: TarMember[] = [
  { name: './', type: 'directory' },
  { name: './data/', type: 'directory' },
  { name: './data/sales.csv', data: SALES },
  { name: './data/latest.csv', type: 'symlink', linkpath: 'sales.csv' },
  { name: './README.md', data: '# sales\n' },
];
const GOOD_ZIP: ZipMember[] = [
  { name: 'data/' },
  { name: 'data/sales.csv', data: SALES },
  { name: 'data/latest.csv', symlink: 'sales.csv' },
  { name: 'README.md', data: '# sales\n' },
];

describe('repo_archive driver (archives made by the test)', () => {
  const root = mkdtempSync(join(tmpdir(), 'repo-archive-'));
  const importDir = join(root, 'import');
  const context = (env: Record<string, string> = {}): DriverContext => ({
    orgId: 'org_1',
    egress: new TestEgressGuard([]),
    imports: importAreaFor(importDir, 'org_1', false, []),
    scratchDir: tmpdir(),
    batchSize: 100,
    parseLimits: parseLimits(env),
    warn: () => undefined,
  });
  const ctx = context();
  const config = (raw: Record<string, unknown>): RepoArchiveConfig =>
    normalizeConfig({ type: 'repo_archive' }, raw).values as RepoArchiveConfig;
  /** An archive as an upload would leave it, in the organization's folder. */
  const upload = (name: string, bytes: Buffer): RepoArchiveConfig => {
    writeFileSync(join(importDir, 'orgs', 'org_1', 'uploads', name), bytes);
    return config({ file_path: `orgs/org_1/uploads/${name}` });
  };
  const inline = (name: string, bytes: Buffer): RepoArchiveConfig =>
    config({ content: bytes.toString('base64'), file_name: name });

  async function readAll(
    cfg: RepoArchiveConfig,
    selection: RowSelection,
    on: DriverContext = ctx,
  ): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for await (const batch of repoArchiveDriver.readRows(cfg, selection, on)) out.push(...batch);
    return out;
  }

  beforeAll(() => {
    mkdirSync(join(importDir, 'orgs', 'org_1', 'uploads'), { recursive: true });
    mkdirSync(join(importDir, 'orgs', 'org_2'), { recursive: true });
    writeFileSync(join(importDir, 'orgs', 'org_2', 'theirs.zip'), zipArchive(GOOD_ZIP));
  });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  describe.each([
    ['tar.gz upload', () => upload('sales.tar.gz', tarGzArchive(GOOD_TAR)), 'tar.gz'],
    ['tgz inline', () => inline('sales.tgz', tarGzArchive(GOOD_TAR)), 'tar.gz'],
    ['tar upload', () => upload('sales.tar', tarArchive(GOOD_TAR)), 'tar'],
    ['zip upload', () => upload('sales.zip', zipArchive(GOOD_ZIP)), 'zip'],
    ['zip inline', () => inline('sales.ZIP', zipArchive(GOOD_ZIP)), 'zip'],
  ])('a good archive (%s)', (_label, make, format) => {
    it('tests, browses and reads a data file inside', async () => {
      const cfg = make();
      const tested = await repoArchiveDriver.test(cfg, ctx);
      expect(tested.details).toMatchObject({ format, entries: 4, data_files: 1 });
      expect(tested.message).toContain('every entry is safe');

      const browsed = await repoArchiveDriver.browse(cfg, ctx);
      expect(browsed.items).toEqual([
        { name: 'data/sales.csv', kind: 'file', type: 'csv', size: SALES.length },
        { name: 'data/latest.csv', kind: 'symlink', size: format === 'zip' ? 9 : 0 },
        { name: 'README.md', kind: 'file', size: 8 },
      ]);
      expect(browsed.discovery).toMatchObject({ format, complete: true, directories: 1, links: 1 });

      expect(await readAll(cfg, { path: 'data/sales.csv' })).toEqual([
        { region: 'north', units: '1' },
        { region: 'south', units: '2' },
      ]);
      expect(await readAll(cfg, { path: './data/sales.csv', limit: 1 })).toEqual([
        { region: 'north', units: '1' },
      ]);
    });

    it('answers not_found for a missing entry and invalid_config for a link or a non-data file', async () => {
      const cfg = make();
      expect((await connectorFailure(readAll(cfg, { path: 'data/none.csv' }))).errorType).toBe('not_found');
      const link = await connectorFailure(readAll(cfg, { path: 'data/latest.csv' }));
      expect(link.errorType).toBe('invalid_config');
      expect(link.message).toContain('data/sales.csv');
      expect((await connectorFailure(readAll(cfg, { path: 'README.md' }))).errorType).toBe('invalid_config');
      expect((await connectorFailure(readAll(cfg, { path: '../x.csv' }))).errorType).toBe('path_not_allowed');
    });
  });

  describe('unsafe archives are refused whole, for test, browse and read alike', () => {
    const cases: [string, () => RepoArchiveConfig, string][] = [
      [
        'tar.gz with ../',
        () =>
          upload(
            'up.tar.gz',
            tarGzArchive([
              { name: 'ok.csv', data: SALES },
              { name: '../evil.csv', data: SALES },
            ]),
          ),
        'leads out of the archive',
      ],
      [
        'tar with a nested ..',
        () => upload('nested.tar', tarArchive([{ name: 'a/../../evil.csv', data: SALES }])),
        'leads out of the archive',
      ],
      [
        'tar with an absolute path',
        () => upload('abs.tar', tarArchive([{ name: '/etc/evil.csv', data: SALES }])),
        'absolute path',
      ],
      [
        'tar with a symlink out',
        () =>
          upload(
            'sym.tgz',
            tarGzArchive([{ name: 'data/x.csv', type: 'symlink', linkpath: '../../etc/passwd' }]),
          ),
        'symbolic link "data/x.csv" leads out',
      ],
      [
        'tar with an absolute symlink',
        () =>
          upload('abs-sym.tar', tarArchive([{ name: 'x.csv', type: 'symlink', linkpath: '/etc/passwd' }])),
        'symbolic link "x.csv" leads out',
      ],
      [
        'tar with a hard link out',
        () =>
          upload('hard.tar', tarArchive([{ name: 'x.csv', type: 'hardlink', linkpath: '../secret.csv' }])),
        'hard link "x.csv" leads out',
      ],
      [
        'zip with ../',
        () =>
          upload(
            'up.zip',
            zipArchive([
              { name: 'ok.csv', data: SALES },
              { name: '../evil.csv', data: SALES },
            ]),
          ),
        'leads out',
      ],
      [
        'zip with a backslash ..',
        () => inline('win.zip', zipArchive([{ name: '..\\evil.csv', data: SALES }])),
        'leads out',
      ],
      [
        'zip with an absolute path',
        () => upload('abs.zip', zipArchive([{ name: '/etc/evil.csv', data: SALES }])),
        'absolute path',
      ],
      [
        'zip with a drive letter',
        () => upload('drive.zip', zipArchive([{ name: 'C:/evil.csv', data: SALES }])),
        'absolute path',
      ],
      [
        'zip with a symlink out',
        () =>
          upload(
            'sym.zip',
            zipArchive([
              { name: 'ok.csv', data: SALES },
              { name: 'x.csv', symlink: '/etc/passwd' },
            ]),
          ),
        'symbolic link "x.csv" leads out',
      ],
    ];

    it.each(cases)('%s', async (_label, make, words) => {
      const cfg = make();
      for (const failure of [
        connectorFailure(repoArchiveDriver.test(cfg, ctx)),
        connectorFailure(repoArchiveDriver.browse(cfg, ctx)),
        connectorFailure(readAll(cfg, { path: 'ok.csv' })),
      ]) {
        const error = await failure;
        expect(error.errorType).toBe('unsafe_archive');
        expect(error.recoverable).toBe(true);
        expect(error.message).toContain(words);
      }
    });
  });

  describe('bombs: limits enforced on what inflates, not on what headers say', () => {
    const zeros = (bytes: number): Buffer => Buffer.alloc(bytes, 0x30);

    it('stops a tar.gz at SERVICE_PARSE_MAX_DECOMPRESSED_BYTES while inflating', async () => {
      const small = context({ SERVICE_PARSE_MAX_DECOMPRESSED_BYTES: String(1024 * 1024) });
      const cfg = upload('big.tar.gz', tarGzArchive([{ name: 'big.csv', data: zeros(8 * 1024 * 1024) }]));
      const error = await connectorFailure(repoArchiveDriver.test(cfg, small));
      expect(error.errorType).toBe('unsafe_archive');
      expect(error.message).toContain('SERVICE_PARSE_MAX_DECOMPRESSED_BYTES');
    });

    it('stops a zip whose entry inflates beyond the ratio, though its header tells the truth', async () => {
      const cfg = upload('ratio.zip', zipArchive([{ name: 'big.csv', data: zeros(40 * 1024 * 1024) }]));
      const browsed = await repoArchiveDriver.browse(cfg, ctx);
      expect(browsed.items).toEqual([{ name: 'big.csv', kind: 'file', type: 'csv', size: 40 * 1024 * 1024 }]);
      const error = await connectorFailure(readAll(cfg, { path: 'big.csv' }));
      expect(error.errorType).toBe('unsafe_archive');
      expect(error.message).toContain('SERVICE_PARSE_MAX_EXPANSION_RATIO');
    });

    it('stops a zip entry that inflates to more than its header declares', async () => {
      const cfg = upload(
        'liar.zip',
        zipArchive([{ name: 'big.csv', data: zeros(4 * 1024 * 1024), declaredSize: 100 }]),
      );
      const error = await connectorFailure(readAll(cfg, { path: 'big.csv' }));
      expect(error.errorType).toBe('unsafe_archive');
      expect(error.message).toContain('more than its header declares');
    });

    it('refuses more entries than SERVICE_PARSE_MAX_ARCHIVE_ENTRIES', async () => {
      const few = context({ SERVICE_PARSE_MAX_ARCHIVE_ENTRIES: '5' });
      const members = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.csv`, data: SALES }));
      for (const cfg of [upload('many.tar', tarArchive(members)), upload('many.zip', zipArchive(members))]) {
        const error = await connectorFailure(repoArchiveDriver.browse(cfg, few));
        expect(error.errorType).toBe('unsafe_archive');
        expect(error.message).toContain('more than 5 entries');
      }
    });

    it('refuses a gzip inside the gzip rather than inflating it uncounted', async () => {
      const cfg = upload('double.tar.gz', gzipSync(tarGzArchive(GOOD_TAR)));
      expect((await connectorFailure(repoArchiveDriver.test(cfg, ctx))).errorType).toBe('invalid_payload');
    });
  });

  describe('corrupt archives and bad configs', () => {
    it('answers invalid_payload for a truncated, a mislabelled or a garbage archive', async () => {
      const gz = tarGzArchive(GOOD_TAR);
      const zip = zipArchive(GOOD_ZIP);
      for (const cfg of [
        upload('cut.tar.gz', gz.subarray(0, gz.length - 40)),
        upload('cut.zip', zip.subarray(0, zip.length - 30)),
        upload('label.zip', gz),
        upload('garbage.tar', Buffer.from('this is not a tar archive at all')),
        inline('bad.zip', Buffer.from('PK but nothing else')),
      ]) {
        const error = await connectorFailure(repoArchiveDriver.test(cfg, ctx));
        expect(error.errorType).toBe('invalid_payload');
      }
    });

    it('confines file_path to the organization’s part of the import dir', async () => {
      for (const path of ['orgs/org_2/theirs.zip', '../outside.zip', 'orgs/org_1/uploads/none.zip']) {
        const error = await connectorFailure(repoArchiveDriver.test(config({ file_path: path }), ctx));
        expect(error.errorType).toBe('path_not_allowed');
      }
    });

    it('validates the config', () => {
      const problems = (raw: Record<string, unknown>): unknown => {
        try {
          normalizeConfig({ type: 'repo_archive' }, raw);
        } catch (error) {
          return (error as { details?: unknown }).details;
        }
        return undefined;
      };
      expect(problems({})).toEqual([
        { field: 'config.file_path', problem: 'is required (or content with file_name)' },
      ]);
      expect(problems({ content: 'UEs=' })).toEqual([
        { field: 'config.file_name', problem: 'is required with content' },
      ]);
      expect(problems({ file_path: 'a.rar' })).toEqual([
        { field: 'config.file_path', problem: 'must end in .tar.gz, .tgz, .tar or .zip' },
      ]);
      expect(problems({ file_path: 'a.zip', content: 'UEs=', file_name: 'a.zip' })).toEqual([
        { field: 'config.content', problem: 'give either file_path or content, not both' },
        { field: 'config.file_name', problem: 'applies only with content' },
      ]);
      expect(normalizeConfig({ type: 'repo_archive' }, { file_path: 'x.tgz' }).values).toEqual({
        file_path: 'x.tgz',
      });
    });
  });
});
